// Thread counts for prompt and verify batches (issue 36 item 5): every core by default while
// decode keeps its calibrated count; the user's own count caps both; a model wholly on a GPU
// keeps one; and without our build's setBatchThreads nothing is set (the prebuilt binary).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { batchThreadCount, batchThreadsSettable, setBatchThreads } from "../../src/extension/backends/llamacpp/batch-threads";
import type { Llama, LlamaContext } from "../../src/extension/backends/llamacpp/node-llama-cpp";

describe("batch thread count", () => {
  it("calibrated decode on 1 of 2 cores: batches on both", () => {
    assert.equal(batchThreadCount({ decode: 1, decodeSet: false, cores: 2, gpuLayers: "none" }), 2);
    assert.equal(batchThreadCount({ decode: 2, decodeSet: false, cores: 8, gpuLayers: "none" }), 8);
  });

  it("never fewer than decode's, never 0", () => {
    assert.equal(batchThreadCount({ decode: 4, decodeSet: false, cores: 2, gpuLayers: "none" }), 4);
    assert.equal(batchThreadCount({ decode: 1, decodeSet: false, cores: 0, gpuLayers: "none" }), 1);
  });

  it("a count the user set caps batches too (it leaves cores to other work)", () => {
    assert.equal(batchThreadCount({ decode: 1, decodeSet: true, cores: 8, gpuLayers: "none" }), 1);
    assert.equal(batchThreadCount({ decode: 3, decodeSet: true, cores: 8, gpuLayers: "some" }), 3);
  });

  it("a model wholly on a GPU keeps decode's count; layers left on the CPU take every core", () => {
    assert.equal(batchThreadCount({ decode: 1, decodeSet: false, cores: 8, gpuLayers: "all" }), 1);
    assert.equal(batchThreadCount({ decode: 8, decodeSet: false, cores: 8, gpuLayers: "some" }), 8);
  });
});

describe("setBatchThreads on the addon", () => {
  it("calls our build's method; the prebuilt addon has none and is left alone", () => {
    const calls: number[] = [];
    const ours = { _ctx: { setBatchThreads: (n: number) => calls.push(n) } } as unknown as LlamaContext;
    assert.equal(setBatchThreads(ours, 2), true);
    assert.deepEqual(calls, [2]);
    const prebuilt = { _ctx: { setThreads: () => undefined } } as unknown as LlamaContext;
    assert.equal(setBatchThreads(prebuilt, 2), false);
  });

  it("is detected on the addon's class before any context exists", () => {
    class Ours {
      setBatchThreads(): void {}
    }
    assert.equal(batchThreadsSettable({ _bindings: { AddonContext: Ours } } as unknown as Llama), true);
    assert.equal(batchThreadsSettable({ _bindings: { AddonContext: class {} } } as unknown as Llama), false);
  });
});
