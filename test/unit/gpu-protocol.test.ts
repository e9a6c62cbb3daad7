// The engine process protocol's GPU fields (additive): the load request's gpu and gpuLayers,
// and the loaded engine's placement, validated on arrival like every other field.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseToEngine, replyChecks } from "../../src/extension/engine-host/protocol";

const loaded = { backend: "llamacpp", modelPath: "/m.gguf", modelName: "m.gguf", capacity: 512, details: "d", chatTemplate: "t" };
const placement = { compute: "vulkan", device: "llvmpipe (LLVM 15.0.6, 256 bits)", layersOffloaded: 31, layers: 31, threads: 1, summary: "Vulkan llvmpipe (LLVM 15.0.6, 256 bits), 31/31 layers" };
const load = (extra: Record<string, unknown>) => parseToEngine({ id: 1, request: { op: "load", load: { modelPath: "/m.gguf", backend: "llamacpp", ...extra } } });

describe("engine process protocol: GPU fields", () => {
  it("a load request carries a known gpu choice and a layer count or auto", () => {
    assert.ok(load({ gpu: "vulkan", gpuLayers: "auto" }));
    assert.ok(load({ gpu: "off", gpuLayers: 0 }));
    assert.ok(load({}), "both optional");
    assert.equal(load({ gpu: "opencl" }), undefined);
    assert.equal(load({ gpuLayers: -1 }), undefined);
    assert.equal(load({ gpuLayers: "31" }), undefined);
  });
  it("the loaded engine's placement is checked field by field", () => {
    assert.ok(replyChecks.load({ ...loaded, placement }));
    assert.ok(replyChecks.load(loaded), "optional");
    assert.ok(!replyChecks.load({ ...loaded, placement: { ...placement, layersOffloaded: -1 } }));
    assert.ok(!replyChecks.load({ ...loaded, placement: { ...placement, summary: 3 } }));
  });
});
