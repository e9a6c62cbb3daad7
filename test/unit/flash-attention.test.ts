// Flash attention stays on everywhere but Mesa's llvmpipe on Vulkan, whose worker thread
// crashes in ggml's flash-attention shader on speculation's verify batches (flash-attention.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { flashAttentionFor, flashAttentionNote, LLVMPIPE_FLASH_ATTENTION_ENV } from "../../src/extension/backends/llamacpp/flash-attention";
import type { EnginePlacement } from "../../src/extension/core/engine";

const placement = (compute: EnginePlacement["compute"], device: string, layersOffloaded = 31): EnginePlacement => ({ compute, device, layersOffloaded, layers: 31, threads: 2, summary: "" });

test("on: the CPU, a real Vulkan GPU, Metal, CUDA", () => {
  assert.equal(flashAttentionFor(undefined), "auto");
  assert.equal(flashAttentionFor(placement("cpu", "Intel(R) Xeon(R)")), "auto");
  assert.equal(flashAttentionFor(placement("vulkan", "AMD Radeon RX 7600 (RADV NAVI33)")), "auto");
  assert.equal(flashAttentionFor(placement("metal", "Apple M2")), "auto");
  assert.equal(flashAttentionFor(placement("cuda", "NVIDIA GeForce RTX 4060")), "auto");
});

test("off on llvmpipe when layers run there, and the details say so", () => {
  assert.equal(flashAttentionFor(placement("vulkan", "llvmpipe (LLVM 15.0.6, 256 bits)")), false);
  assert.equal(flashAttentionFor(placement("vulkan", "llvmpipe (LLVM 15.0.6, 256 bits)", 0)), "auto");
  assert.equal(flashAttentionFor(placement("vulkan", "llvmpipe (LLVM 15.0.6, 256 bits)"), { [LLVMPIPE_FLASH_ATTENTION_ENV]: "on" }), "auto", "kept on when asked");
  assert.equal(flashAttentionNote(false), ", flash attention off (llvmpipe)");
  assert.equal(flashAttentionNote("auto"), "");
});
