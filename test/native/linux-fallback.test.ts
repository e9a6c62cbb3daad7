// Choosing Core ML off macOS: a clear "Core ML needs macOS 15", a typed error from the
// factory, and a visible fall back to llama.cpp in the backend choice.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BackendUnavailableError } from "../../src/extension/core/errors";
import { chooseBackend, coreMLAvailability, isCoreMLModelPath, loadCoreMLEngine } from "../../src/extension/backends/coreml/index";
import { makeModelFolder } from "./fixtures";

const offMac = { skip: process.platform === "darwin" ? "this is macOS" : false };

test("coreMLAvailability says why not", offMac, () => {
  const availability = coreMLAvailability();
  assert.equal(availability.available, false);
  if (!availability.available) assert.match(availability.reason, /Core ML needs macOS 15/);
});

test("loadCoreMLEngine rejects with BackendUnavailableError", offMac, async () => {
  await assert.rejects(loadCoreMLEngine({ modelPath: makeModelFolder(), computeUnits: "auto" }), (error: unknown) => {
    assert.ok(error instanceof BackendUnavailableError);
    assert.equal(error.code, "backend_unavailable");
    assert.match(error.message, /Core ML needs macOS 15/);
    return true;
  });
});

test("backend choice falls back to llama.cpp visibly", async () => {
  const folder = makeModelFolder();
  assert.equal(await isCoreMLModelPath(folder), true);
  assert.equal(await isCoreMLModelPath("/tmp/model.gguf"), false);
  const unavailable = { available: false as const, reason: "Core ML needs macOS 15 (this system is not macOS)" };
  const asked = chooseBackend({ setting: "coreml", isCoreMLModel: true, coreML: unavailable });
  assert.deepEqual(asked, { backend: "llamacpp", reason: "llama.cpp: Core ML needs macOS 15 (this system is not macOS)", fellBack: true });
  assert.equal(chooseBackend({ setting: "auto", isCoreMLModel: true, coreML: unavailable }).backend, "llamacpp");
  const mac = { available: true as const };
  assert.equal(chooseBackend({ setting: "auto", isCoreMLModel: true, coreML: mac }).backend, "coreml");
  assert.equal(chooseBackend({ setting: "auto", isCoreMLModel: false, coreML: mac }).backend, "llamacpp");
  assert.equal(chooseBackend({ setting: "llamacpp", isCoreMLModel: true, coreML: mac }).backend, "llamacpp");
});
