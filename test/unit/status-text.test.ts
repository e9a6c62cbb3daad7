// The status bar item's text: model, where it runs, context fill, spinner while busy.
import assert from "node:assert/strict";
import { it } from "node:test";
import type { EnginePlacement } from "../../src/extension/core/engine";
import { placementLabel, shortModelName, statusText, tokenCount } from "../../src/extension/chats/status-text";

const cpu: EnginePlacement = { compute: "cpu", device: "Intel Xeon", layersOffloaded: 0, layers: 30, threads: 2, summary: "CPU, 2 threads" };
const smol = { name: "SmolLM2-135M-Instruct.Q4_1.gguf", backend: "llamacpp", placement: cpu };

it("names the model, where it runs and how full the context is", () => {
  const view = statusText({ state: "ready", model: smol, position: 1234, capacity: 4096 });
  assert.equal(view.text, "$(chip) SmolLM2-135M · CPU 2t · 1.2k/4k");
  assert.match(view.tooltip, /Model: SmolLM2-135M-Instruct\.Q4_1\.gguf \(llamacpp\)/);
  assert.match(view.tooltip, /Runs on: CPU, 2 threads/);
  assert.match(view.tooltip, /Context: 1,234 of 4,096 tokens \(30%\)/);
  assert.match(view.tooltip, /Click to select a model/);
});

it("spins while the model loads or a reply is generated, not otherwise", () => {
  assert.equal(statusText({ state: "loading", position: 0, capacity: 0 }).text, "$(loading~spin) Loading model…");
  assert.match(statusText({ state: "generating", model: smol, position: 10, capacity: 4096 }).text, /^\$\(loading~spin\) SmolLM2-135M · CPU 2t · 10\/4k$/);
  assert.doesNotMatch(statusText({ state: "ready", model: smol, position: 10, capacity: 4096 }).text, /loading~spin/);
});

it("says when there is no model yet, or it failed", () => {
  assert.equal(statusText({ state: "idle", position: 0, capacity: 0 }).text, "$(chip) Stateful Chat");
  assert.equal(statusText({ state: "failed", position: 0, capacity: 0 }).text, "$(warning) No model");
});

it("GPU placements name the API, and the layers when only some are offloaded", () => {
  const gpu = (layersOffloaded: number): EnginePlacement => ({ compute: "vulkan", device: "llvmpipe", layersOffloaded, layers: 31, threads: 2, summary: `Vulkan llvmpipe, ${layersOffloaded}/31 layers` });
  assert.equal(placementLabel({ name: "m", backend: "llamacpp", placement: gpu(31) }), "Vulkan GPU");
  assert.equal(placementLabel({ name: "m", backend: "llamacpp", placement: gpu(20) }), "Vulkan GPU 20/31");
  assert.equal(placementLabel({ name: "m", backend: "llamacpp", placement: gpu(0) }), "CPU 2t");
  assert.equal(placementLabel({ name: "m", backend: "remote" }), "server");
  assert.equal(placementLabel({ name: "m", backend: "coreml" }), "Core ML");
  assert.match(statusText({ state: "ready", model: { name: "m", backend: "llamacpp", placement: gpu(31) }, position: 0, capacity: 2048 }).tooltip, /Runs on: Vulkan llvmpipe, 31\/31 layers/);
});

it("short names and token counts", () => {
  assert.equal(shortModelName("qwen2.5-coder-7b-instruct-q4_k_m.gguf"), "qwen2.5-coder-7b");
  assert.equal(shortModelName("Qwen2.5-Coder-1.5B-Instruct-4bit.mlpackage"), "Qwen2.5-Coder-1.5B");
  assert.equal(shortModelName("smollm2:135m"), "smollm2:135m");
  assert.equal(shortModelName(".gguf"), ".gguf");
  assert.deepEqual([0, 950, 1024, 1234, 4096, 10240, 32768].map(tokenCount), ["0", "950", "1k", "1.2k", "4k", "10k", "32k"]);
});
