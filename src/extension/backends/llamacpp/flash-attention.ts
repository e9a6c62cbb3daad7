// Flash attention per device. On (llama.cpp's "auto") wherever it runs: on the CPU it attends
// one query row at a time with the same kernel whether a token comes in a prefill batch or alone,
// which keeps a re-prefilled conversation answering as its cache does (llama-state.ts). Off on
// Mesa's llvmpipe (lavapipe), the CPU-type Vulkan device the GPU tests run on: with node-llama-cpp
// 3.21.1's Vulkan binary and Mesa 22.3, ggml's flash-attention shader crashes lavapipe's worker
// thread (SIGSEGV in libvulkan_lvp.so) on a batch of 3 tokens after the cache was cut back, which
// is what speculation's verify steps do (reproduced with node-llama-cpp alone, 2026-12-05). A GPU
// driver may read past the same buffer without crashing; only a real Vulkan GPU can tell.

import type { EnginePlacement } from "../../core/engine";

export type FlashAttentionChoice = "auto" | false;

const LAVAPIPE = /llvmpipe|lavapipe/i;

/**
 * STATEFUL_CHAT_LLVMPIPE_FLASH_ATTENTION=on keeps it on llvmpipe too, for what needs a real GPU's
 * cache layout and never verifies after an erase: the GPU suite's snapshot exchange between the
 * Vulkan and CPU binaries (flash attention off stores V transposed, and llama.cpp refuses a state
 * file of the other layout).
 */
export const LLVMPIPE_FLASH_ATTENTION_ENV = "STATEFUL_CHAT_LLVMPIPE_FLASH_ATTENTION";

export function flashAttentionFor(placement: EnginePlacement | undefined, env: NodeJS.ProcessEnv = process.env): FlashAttentionChoice {
  if (env[LLVMPIPE_FLASH_ATTENTION_ENV] === "on") return "auto";
  return placement?.compute === "vulkan" && placement.layersOffloaded > 0 && LAVAPIPE.test(placement.device) ? false : "auto";
}

/** What the model details add when flash attention is off. */
export function flashAttentionNote(choice: FlashAttentionChoice): string {
  return choice === false ? ", flash attention off (llvmpipe)" : "";
}
