// The GPU suite's device: Mesa's llvmpipe (test/support/llvmpipe-driver.ts), named to ggml
// before node-llama-cpp loads (engine processes inherit the variables).

import { LlamaEngine } from "../../src/extension/backends/llamacpp/llama-engine";
import type { Engine } from "../../src/extension/core/engine";
import { defaultModelFile } from "../support/default-model";
import { llvmpipeEnvironment } from "../support/llvmpipe-driver";

Object.assign(process.env, llvmpipeEnvironment());

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
