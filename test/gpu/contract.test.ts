// The engine contract on a real Vulkan device (llvmpipe), the default model fully offloaded:
// prefill, decode, exact tail erase, reset, capacity, independent states. Then device memory:
// a chat that does not fit is refused with a typed error before anything is allocated, and
// closing chats frees what they held on the device.

import "./llvmpipe";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { LlamaEngine } from "../../src/extension/backends/llamacpp/llama-engine";
import type { KvState } from "../../src/extension/core/engine";
import { DeviceMemoryError } from "../../src/extension/core/errors";
import { engineContract } from "../contract/engine-contract";
import { assertFullyOffloaded, loadGpuEngine } from "./llvmpipe";

engineContract(
  "llama.cpp on Vulkan (Mesa llvmpipe), every layer offloaded",
  async () => {
    const engine = await loadGpuEngine();
    assertFullyOffloaded(engine);
    return engine;
  },
  { steps: 2 },
);

describe("device memory on Vulkan (llvmpipe)", () => {
  let engine: LlamaEngine;
  before(async () => {
    // The model's whole training context: a KV cache of 8192 tokens is ~190 MB on the device,
    // so llvmpipe's 2 GB hold only a few of them.
    engine = await loadGpuEngine(8192);
  });
  after(async () => {
    await engine?.dispose();
  });

  it("refuses, with a typed error naming the figures, the chat that does not fit; closing chats frees their memory", async () => {
    assertFullyOffloaded(engine);
    const llama = (await import("../../src/extension/backends/llamacpp/node-llama-cpp")).getLlamaRuntime;
    const { llama: runtime } = await llama();
    const usedBefore = (await runtime.getLlamaMemoryUsage()).gpuVram;
    const states: KvState[] = [];
    let refusal: unknown;
    try {
      for (let i = 0; i < 40 && refusal === undefined; i++) {
        try {
          states.push(await engine.createState());
        } catch (error) {
          refusal = error;
        }
      }
      assert.ok(refusal instanceof DeviceMemoryError, `refused with DeviceMemoryError, got ${String(refusal)}`);
      assert.equal(refusal.code, "device_memory_exceeded");
      assert.match(refusal.message, new RegExp(`Not enough memory on Vulkan llvmpipe .* for another chat: a KV cache of 8192 tokens needs \\d+ MB, \\d+ MB is free \\(${states.length} chats open\\)`));
      assert.ok(states.length >= 2, `${states.length} chats fit before the refusal`);
      // The open chats still work after the refusal.
      const prompt = engine.tokenizer.encode("Hello", { specials: false });
      assert.equal(typeof (await states[0].evaluate(prompt, { temperature: 0 })), "number");
      const usedOpen = (await runtime.getLlamaMemoryUsage()).gpuVram;
      for (const state of states.splice(0)) await state.dispose();
      const usedAfter = (await runtime.getLlamaMemoryUsage()).gpuVram;
      console.log(`device memory (node-llama-cpp's count): ${mb(usedBefore)} before, ${mb(usedOpen)} with the chats open, ${mb(usedAfter)} after closing them`);
      assert.ok(usedOpen > usedBefore, "the open chats held device memory");
      assert.ok(usedAfter < usedOpen, "closing the chats freed it");
      // With the chats closed there is room again.
      states.push(await engine.createState());
    } finally {
      for (const state of states) await state.dispose();
    }
  });
});

function mb(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}
