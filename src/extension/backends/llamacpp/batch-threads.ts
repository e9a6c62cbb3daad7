// Prompt and verify batches on their own thread count (issue 36 item 5). The calibration
// (thread-calibration.ts) picks the count that decodes one token fastest; on two shared cores
// that is often 1, and prefill, which is compute-bound and scales with cores, then ran on one
// of two. llama.cpp has a second count for batches of more than one token (n_threads_batch);
// node-llama-cpp 3.21 sets both to its one `threads` before every batch and exposes no
// other, so our build adds `setBatchThreads` (src/tools/llama-build/patches/
// addon-batch-threads.patch). On the prebuilt binary batches keep the decode count.

import type { Llama, LlamaContext } from "./node-llama-cpp";

export interface BatchThreadChoice {
  /** Threads for single-token decode (calibrated, or the user's setting). */
  readonly decode: number;
  /** The user set the thread count (statefulChat.advanced.threads): it caps batches too. */
  readonly decodeSet: boolean;
  /** Cores available to this process (os.availableParallelism()). */
  readonly cores: number;
  /** Where the model's layers run: wholly on a GPU the CPU only feeds the device. */
  readonly gpuLayers: "all" | "some" | "none";
}

/**
 * Threads for prompt and verify batches: every core, unless the user set a count (which is
 * there to leave cores to other work) or the model runs wholly on a GPU; never fewer than
 * decode's.
 */
export function batchThreadCount(choice: BatchThreadChoice): number {
  if (choice.decodeSet || choice.gpuLayers === "all") return choice.decode;
  return Math.max(choice.decode, choice.cores, 1);
}

interface BatchThreadsAddon {
  setBatchThreads(threads: number): void;
}

/** Whether the loaded binary can set batch threads apart (checked on the addon's class, before any context exists). */
export function batchThreadsSettable(llama: Llama): boolean {
  const bindings = (llama as unknown as { _bindings?: { AddonContext?: { prototype?: Partial<BatchThreadsAddon> } } })._bindings;
  return typeof bindings?.AddonContext?.prototype?.setBatchThreads === "function";
}

/** Give `context`'s batches `threads` threads; false when the binary cannot (they keep the context's count). */
export function setBatchThreads(context: LlamaContext, threads: number): boolean {
  const addon = (context as unknown as { readonly _ctx?: Partial<BatchThreadsAddon> })._ctx;
  if (typeof addon?.setBatchThreads !== "function") return false;
  addon.setBatchThreads(threads);
  return true;
}
