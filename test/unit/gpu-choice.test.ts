// Where llama.cpp runs, decided from what node-llama-cpp reports (backends/llamacpp/gpu-choice.ts):
// no device, a device, too little memory, a broken driver; and the device-memory refusal.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { contextRefusal, freeDeviceMemory } from "../../src/extension/backends/llamacpp/device-memory";
import {
  decideGpu,
  gpuTypesToTry,
  layersThatFit,
  placementSummary,
  type GpuAttempt,
  type GpuChoiceInput,
} from "../../src/extension/backends/llamacpp/gpu-choice";
import { parseProbeOutput } from "../../src/extension/backends/llamacpp/gpu-probe";
import { parseChatArgs, UsageError } from "../../src/extension/cli/chat-args";
import { isGpuLayersChoice } from "../../src/extension/core/engine-options";

const MB = 1024 * 1024;
const GB = 1024 * MB;
// The default model on llvmpipe, as node-llama-cpp 3.21.1 estimated it (context 512).
const SMOLLM = { layers: 31, modelBytes: 97 * MB, contextBytes: 114 * MB };

const device = (over: Partial<Extract<GpuAttempt, { loaded: true }>> = {}): GpuAttempt => ({
  type: "vulkan",
  loaded: true,
  devices: ["llvmpipe (LLVM 15.0.6, 256 bits)"],
  offloading: true,
  vram: { total: 2 * GB, free: 2 * GB },
  padding: 164 * MB,
  estimate: SMOLLM,
  ...over,
});

const input = (over: Partial<GpuChoiceInput>): GpuChoiceInput => ({
  choice: "auto",
  layers: "auto",
  supported: ["vulkan"],
  attempts: [],
  reservedStates: 4,
  ...over,
});

describe("GPU choice", () => {
  it("auto with a device that fits: that GPU's binary, every layer", () => {
    assert.deepEqual(decideGpu(input({ attempts: [device()] })), {
      binary: "vulkan",
      device: "llvmpipe (LLVM 15.0.6, 256 bits)",
      gpuLayers: 31,
      totalLayers: 31,
    });
  });

  it("auto on a machine without any GPU driver: the CPU, silently", () => {
    assert.deepEqual(gpuTypesToTry("auto", []), []);
    const decision = decideGpu(input({ supported: [], attempts: [] }));
    assert.equal(decision.binary, "cpu");
    assert.equal(decision.binary === "cpu" && decision.notice, undefined);
  });

  it("auto where the driver lists no device: the CPU, the reason kept in the details, no notice", () => {
    const decision = decideGpu(input({ attempts: [device({ devices: [], offloading: false, vram: { total: 0, free: 0 }, estimate: undefined })] }));
    assert.equal(decision.binary, "cpu");
    assert.ok(decision.binary === "cpu");
    assert.equal(decision.reason, "no Vulkan device");
    assert.equal(decision.notice, undefined);
  });

  it("vulkan named but no device: the CPU with one notice that says why", () => {
    const decision = decideGpu(input({ choice: "vulkan", attempts: [device({ devices: [], offloading: false })] }));
    assert.ok(decision.binary === "cpu");
    assert.match(decision.notice ?? "", /^GPU not used \(Vulkan lists no device — .*GGML_VK_VISIBLE_DEVICES set\); running on the CPU\.$/);
  });

  it("a broken driver (the binary does not load): the CPU with a notice, under auto too", () => {
    const broken: GpuAttempt = { type: "cuda", loaded: false, error: "NoBinaryFoundError; libcuda.so.1: version mismatch" };
    for (const choice of ["auto", "cuda"] as const) {
      const decision = decideGpu(input({ choice, supported: ["cuda"], attempts: [broken] }));
      assert.ok(decision.binary === "cpu");
      assert.match(decision.notice ?? "", /the CUDA binary did not load \(driver missing or too old\): NoBinaryFoundError; libcuda\.so\.1: version mismatch/);
    }
  });

  it("auto tries the next GPU type when the first is broken", () => {
    const decision = decideGpu(input({ supported: ["cuda", "vulkan"], attempts: [{ type: "cuda", loaded: false, error: "x" }, device()] }));
    assert.equal(decision.binary, "vulkan");
    assert.deepEqual(gpuTypesToTry("auto", ["vulkan", "cuda"]), ["cuda", "vulkan"], "node-llama-cpp's order: Metal, CUDA, Vulkan");
  });

  it("too little memory for the model and the chats' KV caches: fewer layers, and none at all is the CPU with a notice", () => {
    // 4 chats × 114 MB + 97 MB = 553 MB at 31 layers; 300 MB free after padding fits 16 of them.
    const partial = decideGpu(input({ attempts: [device({ vram: { total: 2 * GB, free: 300 * MB + 164 * MB } })] }));
    assert.ok(partial.binary === "vulkan");
    assert.equal(partial.gpuLayers, Math.floor((31 * 300) / 553));
    const none = decideGpu(input({ attempts: [device({ vram: { total: 2 * GB, free: 100 * MB } })] }));
    assert.ok(none.binary === "cpu");
    assert.match(none.notice ?? "", /out of device memory on Vulkan llvmpipe .*the model needs 97 MB and each chat's KV cache 114 MB \(room kept for 4\), 0 MB free/);
  });

  it("auto layers leave room for as many KV caches as asked", () => {
    const budget = 1000 * MB;
    assert.equal(layersThatFit(SMOLLM, budget, 1), 31);
    assert.ok(layersThatFit(SMOLLM, budget, 16) < 31);
    assert.equal(layersThatFit(SMOLLM, 0, 1), 0);
  });

  it("a layer count is taken as given (capped at the model's), 0 is the CPU", () => {
    const twenty = decideGpu(input({ layers: 20, attempts: [device()] }));
    assert.ok(twenty.binary === "vulkan" && twenty.gpuLayers === 20);
    const many = decideGpu(input({ layers: 99, attempts: [device()] }));
    assert.ok(many.binary === "vulkan" && many.gpuLayers === 31);
    assert.equal(decideGpu(input({ layers: 0, attempts: [device()] })).binary, "cpu");
  });

  it("off is the CPU whatever is there; a GPU named that has no driver here says so", () => {
    assert.equal(decideGpu(input({ choice: "off", attempts: [device()] })).binary, "cpu");
    const metal = decideGpu(input({ choice: "metal", supported: ["vulkan"], attempts: [] }));
    assert.ok(metal.binary === "cpu");
    assert.match(metal.notice ?? "", /no Metal driver found on this machine/);
  });

  it("says where the model runs", () => {
    assert.equal(placementSummary("vulkan", "llvmpipe (LLVM 15.0.6, 256 bits)", 31, 31, 1), "Vulkan llvmpipe (LLVM 15.0.6, 256 bits), 31/31 layers");
    assert.equal(placementSummary("cpu", "Xeon", 0, 31, 2), "CPU, 2 threads");
    assert.equal(placementSummary("cuda", "RTX 4090", 20, 29, 4), "CUDA RTX 4090, 20/29 layers (the rest on the CPU, 4 threads)");
  });

  it("gpuLayers accepts auto or a whole number", () => {
    assert.ok(isGpuLayersChoice("auto") && isGpuLayersChoice(0) && isGpuLayersChoice(31));
    assert.ok(!isGpuLayersChoice(-1) && !isGpuLayersChoice(1.5) && !isGpuLayersChoice("31"));
  });
});

describe("GPU probe answers", () => {
  it("reads the marked line among node-llama-cpp's own output", () => {
    const out = `[node-llama-cpp] something\nSTATEFUL_CHAT_GPU_PROBE ${JSON.stringify(device())}\n`;
    assert.deepEqual(parseProbeOutput("vulkan", out), device());
  });
  it("a probe that printed nothing or garbage is a failed load", () => {
    assert.deepEqual(parseProbeOutput("cuda", "Segmentation fault"), { type: "cuda", loaded: false, error: "the probe process gave no answer" });
    assert.equal(parseProbeOutput("cuda", "STATEFUL_CHAT_GPU_PROBE {nope").loaded, false);
    assert.equal(parseProbeOutput("cuda", `STATEFUL_CHAT_GPU_PROBE ${JSON.stringify(device())}`).loaded, false, "an answer for another type");
  });
});

describe("device memory for one more chat", () => {
  const base = { device: { total: 2 * GB, free: 2 * GB }, padding: 164 * MB, contextSize: 8192, deviceName: "Vulkan llvmpipe" };
  it("fits: no refusal", () => {
    assert.equal(contextRefusal({ ...base, needed: 300 * MB, heldByEngine: 400 * MB, openStates: 1 }), undefined);
  });
  it("does not fit: the refusal names the figures and what to do", () => {
    const message = contextRefusal({ ...base, needed: 300 * MB, heldByEngine: 1700 * MB, openStates: 5 });
    assert.match(message ?? "", /Not enough memory on Vulkan llvmpipe for another chat: a KV cache of 8192 tokens needs 300 MB, 184 MB is free \(5 chats open\)/);
  });
  it("a driver that reports the same free memory whatever is allocated is not believed past the total", () => {
    assert.equal(freeDeviceMemory({ device: { total: 2 * GB, free: 2 * GB }, heldByEngine: 1 * GB, padding: 0 }), 1 * GB);
    assert.equal(freeDeviceMemory({ device: { total: 2 * GB, free: 512 * MB }, heldByEngine: 1 * GB, padding: 0 }), 512 * MB);
  });
});

describe("CLI --gpu and --gpu-layers", () => {
  it("default auto; named choices and layer counts are taken; others refused", () => {
    assert.deepEqual([parseChatArgs([]).gpu, parseChatArgs([]).gpuLayers], ["auto", "auto"]);
    const args = parseChatArgs(["--gpu", "vulkan", "--gpu-layers", "20"]);
    assert.deepEqual([args.gpu, args.gpuLayers], ["vulkan", 20]);
    assert.throws(() => parseChatArgs(["--gpu", "opencl"]), UsageError);
    assert.throws(() => parseChatArgs(["--gpu-layers", "-3"]), UsageError);
  });
});

describe("a CUDA binary that was not fetched (gpu-binaries/)", () => {
  const notFetched: GpuAttempt = { type: "cuda", loaded: false, notInstalled: true, error: "the CUDA binary (@node-llama-cpp/linux-x64-cuda) is not installed" };

  it("leaves the CPU without a second notice: the fetch's notice said why and how to retry", () => {
    for (const choice of ["auto", "cuda"] as const) {
      const decision = decideGpu(input({ choice, supported: ["cuda"], attempts: [notFetched] }));
      assert.equal(decision.binary, "cpu", choice);
      assert.equal(decision.binary === "cpu" && decision.notice, undefined, choice);
      assert.equal(decision.binary === "cpu" && decision.reason, "no CUDA binary", choice);
    }
  });

  it("lets auto go on to Vulkan", () => {
    const decision = decideGpu(input({ supported: ["cuda", "vulkan"], attempts: [notFetched, device()] }));
    assert.equal(decision.binary, "vulkan");
  });
});

describe("gpu: cuda named on a machine without an NVIDIA driver, where nothing was fetched", () => {
  it("says so in one notice (the probe is skipped, the shell fetched nothing)", () => {
    const decision = decideGpu(input({ choice: "cuda", supported: [], attempts: [] }));
    assert.equal(decision.binary, "cpu");
    assert.match(decision.binary === "cpu" ? (decision.notice ?? "") : "", /no CUDA driver found/);
  });
});
