// Which llama.cpp binary serves a model and how many of its layers go to the GPU, decided
// from what node-llama-cpp reports about this machine (gpu-probe.ts asks it, one child
// process per GPU type, so a binary that fails or finds nothing never enters this process).
// Pure: the unit tests feed it reported device lists.
//
// The CPU is served by our patched build (threadpool, native reply loop, batch verify) or
// node-llama-cpp's prebuilt CPU binary; a GPU by node-llama-cpp's prebuilt for that GPU.

import type { GpuChoice, GpuLayersChoice } from "../../core/engine-options";

/** The GPU choices (core/engine-options.ts) that name a GPU. */
export type GpuType = Exclude<GpuChoice, "auto" | "off">;
/** The order `auto` tries them in (node-llama-cpp's own order). */
const GPU_TYPES: readonly GpuType[] = ["metal", "cuda", "vulkan"];

const API_NAMES: Readonly<Record<GpuType, string>> = { metal: "Metal", cuda: "CUDA", vulkan: "Vulkan" };

export function gpuApiName(type: GpuType): string {
  return API_NAMES[type];
}

interface VramState {
  readonly total: number;
  readonly free: number;
}

/** What loading the binary of one GPU type reported (in a probe process). */
export type GpuAttempt =
  | {
      readonly type: GpuType;
      readonly loaded: false;
      readonly error: string;
      /** The binary is not installed (CUDA's is fetched on first use, gpu-binaries/): not tried, and the fetch told the user why. */
      readonly notInstalled?: boolean;
    }
  | {
      readonly type: GpuType;
      readonly loaded: true;
      readonly devices: readonly string[];
      /** node-llama-cpp's `supportsGpuOffloading` for the loaded binary. */
      readonly offloading: boolean;
      readonly vram: VramState;
      /** Bytes node-llama-cpp keeps free for its own estimates' error (`vramPaddingSize`). */
      readonly padding: number;
      /** Device memory the model needs with every layer offloaded, and one KV cache (context) of the requested size. */
      readonly estimate?: { readonly layers: number; readonly modelBytes: number; readonly contextBytes: number };
    };

export interface GpuChoiceInput {
  readonly choice: GpuChoice;
  readonly layers: GpuLayersChoice;
  /** GPU types whose drivers node-llama-cpp detects here (`getLlamaGpuTypes("supported")`). */
  readonly supported: readonly GpuType[];
  /** In the order tried; `auto` stops at the first usable one. */
  readonly attempts: readonly GpuAttempt[];
  /** KV caches `auto` layers leave room for (chats open at once). */
  readonly reservedStates: number;
}

export type GpuDecision =
  | {
      readonly binary: "cpu";
      /** Why not a GPU, for the engine's details ("off", "no Vulkan device", …). */
      readonly reason: string;
      /** Shown once to the user when a GPU was asked for or found but is not used. */
      readonly notice?: string;
    }
  | {
      readonly binary: GpuType;
      readonly device: string;
      readonly gpuLayers: number;
      readonly totalLayers: number;
    };

const MB = 1024 * 1024;
const mb = (bytes: number) => `${Math.round(bytes / MB)} MB`;

/** The GPU types to try, in order: `auto` tries those with drivers here; a named one is tried even without. */
export function gpuTypesToTry(choice: GpuChoice, supported: readonly GpuType[]): GpuType[] {
  if (choice === "off") return [];
  if (choice === "auto") return GPU_TYPES.filter((type) => supported.includes(type));
  return [choice];
}

/** Layers that fit in `budget` bytes, each layer carrying its share of the model and of `states` KV caches. */
export function layersThatFit(estimate: { layers: number; modelBytes: number; contextBytes: number }, budget: number, states: number): number {
  const full = estimate.modelBytes + states * estimate.contextBytes;
  if (full <= budget) return estimate.layers;
  if (budget <= 0 || full <= 0) return 0;
  return Math.max(0, Math.min(estimate.layers, Math.floor((estimate.layers * budget) / full)));
}

type Usable = { readonly ok: true; readonly decision: Extract<GpuDecision, { binary: GpuType }> };
type Unusable = { readonly ok: false; readonly kind: "no-driver" | "not-installed" | "failed" | "no-device" | "memory"; readonly short: string; readonly why: string };

function judge(attempt: GpuAttempt, input: GpuChoiceInput): Usable | Unusable {
  const api = gpuApiName(attempt.type);
  if (!attempt.loaded && attempt.notInstalled) {
    return { ok: false, kind: "not-installed", short: `no ${api} binary`, why: attempt.error };
  }
  if (!attempt.loaded) {
    return { ok: false, kind: "failed", short: `${api} did not load`, why: `the ${api} binary did not load (driver missing or too old): ${attempt.error}` };
  }
  if (!attempt.offloading || attempt.devices.length === 0) {
    const hint = attempt.type === "vulkan" ? " — ggml lists a CPU-type Vulkan device such as llvmpipe only with GGML_VK_VISIBLE_DEVICES set" : "";
    return { ok: false, kind: "no-device", short: `no ${api} device`, why: `${api} lists no device${hint}` };
  }
  const device = attempt.devices.join(" + ");
  const estimate = attempt.estimate;
  if (input.layers !== "auto" || !estimate) {
    const totalLayers = estimate?.layers ?? (typeof input.layers === "number" ? input.layers : 0);
    const gpuLayers = typeof input.layers === "number" ? Math.min(input.layers, totalLayers || input.layers) : totalLayers;
    return { ok: true, decision: { binary: attempt.type, device, gpuLayers, totalLayers: Math.max(totalLayers, gpuLayers) } };
  }
  const budget = attempt.vram.free - attempt.padding;
  const gpuLayers = layersThatFit(estimate, budget, input.reservedStates);
  if (gpuLayers === 0) {
    return {
      ok: false,
      kind: "memory",
      short: `${api} out of memory`,
      why:
        `out of device memory on ${api} ${device}: the model needs ${mb(estimate.modelBytes)} and each chat's KV cache ` +
        `${mb(estimate.contextBytes)} (room kept for ${input.reservedStates}), ${mb(Math.max(0, budget))} free`,
    };
  }
  return { ok: true, decision: { binary: attempt.type, device, gpuLayers, totalLayers: estimate.layers } };
}

/**
 * The binary and layers for `input`. A GPU that is usable wins; otherwise the CPU, with a
 * notice that says why whenever the user named a GPU, or `auto` found one it could not use
 * (a driver that fails, too little memory). `auto` on a machine with no GPU device at all
 * is the ordinary CPU case: no notice, the reason stays in the engine's details.
 */
export function decideGpu(input: GpuChoiceInput): GpuDecision {
  if (input.choice === "off") return { binary: "cpu", reason: "GPU off" };
  if (input.layers === 0) {
    return { binary: "cpu", reason: "GPU layers 0", notice: input.choice === "auto" ? undefined : "GPU not used: statefulChat.gpuLayers is 0; running on the CPU." };
  }
  const unusable: Unusable[] = [];
  for (const attempt of input.attempts) {
    const verdict = judge(attempt, input);
    if (verdict.ok) return verdict.decision;
    unusable.push(verdict);
  }
  if (input.choice !== "auto" && !input.attempts.some((a) => a.type === input.choice) && !input.supported.includes(input.choice)) {
    const api = gpuApiName(input.choice);
    unusable.unshift({ ok: false, kind: "no-driver", short: `no ${api} driver`, why: `no ${api} driver found on this machine` });
  }
  if (unusable.length === 0) return { binary: "cpu", reason: "no GPU found" };
  const why = unusable.map((u) => u.why).join("; ");
  // A binary not installed was the fetch's to tell (one notice, with how to retry).
  const tell = (input.choice !== "auto" || unusable.some((u) => u.kind === "failed" || u.kind === "memory")) && !unusable.every((u) => u.kind === "not-installed");
  return {
    binary: "cpu",
    reason: unusable.map((u) => u.short).join("; "),
    notice: tell ? `GPU not used (${why}); running on the CPU.` : undefined,
  };
}

/** The people's line for a placement: "Vulkan llvmpipe (…), 31/31 layers", "CPU, 2 threads". */
export function placementSummary(compute: "cpu" | GpuType, device: string, layersOffloaded: number, layers: number, threads: number): string {
  if (compute === "cpu" || layersOffloaded === 0) return `CPU, ${threads} thread${threads === 1 ? "" : "s"}`;
  const cpuPart = layersOffloaded < layers ? ` (the rest on the CPU, ${threads} thread${threads === 1 ? "" : "s"})` : "";
  return `${gpuApiName(compute)} ${device}, ${layersOffloaded}/${layers} layers${cpuPart}`;
}
