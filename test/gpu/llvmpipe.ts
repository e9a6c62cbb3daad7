// The GPU suite's device: Mesa's llvmpipe, a real Vulkan implementation on the CPU (Debian
// mesa-vulkan-drivers; test/run-all.sh installs it). ggml skips CPU-type Vulkan devices
// unless GGML_VK_VISIBLE_DEVICES names them, so this sets both variables before
// node-llama-cpp loads (engine processes inherit them). A missing driver is a failure, never a skip.

import { existsSync } from "node:fs";
import { LlamaEngine } from "../../src/extension/backends/llamacpp/llama-engine";
import type { Engine } from "../../src/extension/core/engine";
import { defaultModelFile } from "../support/default-model";

export const LVP_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

if (!existsSync(process.env.VK_ICD_FILENAMES ?? LVP_ICD)) {
  throw new Error(`Mesa's llvmpipe Vulkan driver is missing (${LVP_ICD}): apt-get install -y mesa-vulkan-drivers`);
}
process.env.VK_ICD_FILENAMES ??= LVP_ICD;
process.env.GGML_VK_VISIBLE_DEVICES ??= "0";

/** Small: llvmpipe computes every kernel on the CPU. */
export const GPU_CONTEXT = 512;

/** The default model on llvmpipe, every layer offloaded, in this process. */
export function loadGpuEngine(contextSize = GPU_CONTEXT): Promise<LlamaEngine> {
  return LlamaEngine.load({ modelPath: defaultModelFile(), contextSize, gpu: "vulkan", gpuLayers: "auto" });
}

/** Fails unless the engine really runs on llvmpipe with every layer there. */
export function assertFullyOffloaded(engine: Engine): void {
  const placement = engine.info.placement;
  if (!placement || placement.compute !== "vulkan" || !/llvmpipe/.test(placement.device) || placement.layersOffloaded !== placement.layers) {
    throw new Error(`expected the model fully on Vulkan llvmpipe, got ${JSON.stringify(placement)} (${engine.info.details})`);
  }
}
