// "auto" compute units, decided from the model's shapes, never by a prediction in the
// extension host. Apple's engineers state that the Neural Engine runs a range-shaped
// (RangeDim) model only at its default shape and sends other shapes to the GPU or CPU,
// and `cpuAndNeuralEngine` leaves the GPU out: a range-shaped model belongs on
// `cpuAndGPU` (Apple's Llama recipe and swift-transformers do the same). Fixed-shape
// models (enumerated query lengths, or a prefill/decode multifunction package) are what
// the Neural Engine compiles ahead of time, so they get `cpuAndNeuralEngine`. A failed
// Neural Engine compile can kill the process on its first prediction (coremltools
// #2758), so measuring is left to a child process (probe.ts), never done here.
import { COMPUTE_UNITS_CHOICES, type ComputeUnitsChoice } from "../../core/engine-options";
import type { ComputeUnitsName, NativeQueryLengths } from "./addon";

/** Every compute-units setting but `auto`, in the settings' order. */
export const COMPUTE_UNIT_OPTIONS: readonly ComputeUnitsName[] = COMPUTE_UNITS_CHOICES.filter((units): units is ComputeUnitsName => units !== "auto");

/** The compute units a model loads with, and why (what a ComputeUnitsChoice resolved to). */
export interface ComputeUnitsDecision {
  readonly units: ComputeUnitsName;
  /** Why, in words for the panel header and Show Session Stats. */
  readonly reason: string;
}

export interface ModelShapes {
  /** From the loaded model's description; not needed when `functions` decides. */
  readonly queryLengths?: NativeQueryLengths;
  /** Prefill/decode function names of a multifunction package, when it has them. */
  readonly functions?: { readonly prefill: string; readonly decode: string };
}

function describe(lengths: NativeQueryLengths): string {
  return lengths.kind === "range" ? `${lengths.min}…${lengths.max}` : `{${lengths.allowed.join(", ")}}`;
}

/** The compute units "auto" means for a model of these shapes. Pure. */
export function chooseComputeUnits(shapes: ModelShapes): ComputeUnitsDecision {
  if (shapes.functions) {
    return {
      units: "cpuAndNeuralEngine",
      reason: `fixed-shape functions ${shapes.functions.prefill}/${shapes.functions.decode} suit the Neural Engine`,
    };
  }
  if (!shapes.queryLengths) return { units: "cpuAndGPU", reason: "shapes unknown; the GPU runs any shape" };
  if (shapes.queryLengths.kind === "enumerated") {
    return { units: "cpuAndNeuralEngine", reason: `fixed query lengths ${describe(shapes.queryLengths)} suit the Neural Engine` };
  }
  return {
    units: "cpuAndGPU",
    reason: `range-shaped query length ${describe(shapes.queryLengths)}: the Neural Engine would run only its default shape`,
  };
}

/** What the setting resolves to once the shapes are known. */
export function resolveComputeUnits(setting: ComputeUnitsChoice, shapes: ModelShapes): ComputeUnitsDecision {
  if (setting !== "auto") return { units: setting, reason: "chosen in settings" };
  return chooseComputeUnits(shapes);
}

/** The compute units "auto" loads with first, to read the shapes: the one that is safe for any model. */
export const SHAPE_READING_UNITS: ComputeUnitsName = "cpuAndGPU";
