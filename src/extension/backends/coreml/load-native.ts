// Loads the compiled model with the compute units the setting resolves to. For "auto" the
// shapes decide (compute-units.ts): a multifunction package goes straight to the Neural
// Engine; any other model is loaded first with cpuAndGPU, which runs every shape, its
// description read, and reloaded for the Neural Engine only when its shapes are fixed.
// No prediction runs here: nothing in the extension host risks a Neural Engine crash.
import type { ComputeUnitsChoice } from "../../core/engine-options";
import type { CoreMLAddon, NativeModel } from "./addon";
import {
  chooseComputeUnits,
  resolveComputeUnits,
  SHAPE_READING_UNITS,
  type ComputeUnitsDecision,
} from "./compute-units";

export interface LoadedNativeModel {
  readonly model: NativeModel;
  readonly choice: ComputeUnitsDecision;
  /** For EngineInfo.details, e.g. "compute units auto → cpuAndGPU (range-shaped …)". */
  readonly details: string;
}

export async function loadNativeModel(
  addon: Pick<CoreMLAddon, "loadModel">,
  compiledPath: string,
  setting: ComputeUnitsChoice,
  functions?: { readonly prefill: string; readonly decode: string },
): Promise<LoadedNativeModel> {
  const functionOptions = functions ? { prefillFunction: functions.prefill, decodeFunction: functions.decode } : {};
  const load = (units: ComputeUnitsDecision["units"]) => addon.loadModel(compiledPath, { computeUnits: units, ...functionOptions });
  let model: NativeModel;
  let choice: ComputeUnitsDecision;
  if (setting !== "auto" || functions) {
    choice = resolveComputeUnits(setting, { functions });
    model = await load(choice.units);
  } else {
    model = await load(SHAPE_READING_UNITS);
    choice = chooseComputeUnits({ queryLengths: model.info().queryLengths });
    if (choice.units !== SHAPE_READING_UNITS) {
      model.dispose(); // freed at once (the addon moves it out of its handle)
      model = await load(choice.units);
    }
  }
  const details = `compute units ${setting === "auto" ? `auto → ${choice.units}` : choice.units} (${choice.reason})`;
  return { model, choice, details };
}
