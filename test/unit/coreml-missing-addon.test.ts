// A darwin VSIX built without a Mac carries no Core ML addon (issue 37): on macOS the Core ML
// backend must then say why it is unavailable, in words a VSIX user can act on, and the
// backend choice must fall back to llama.cpp (Metal) with that reason in the model details.
// Simulated here: node --test runs this file in its own process, so process.platform can be
// set to darwin, and every `.node` load fails as it does when the file is absent.
import { test } from "node:test";
import assert from "node:assert/strict";
import Module from "node:module";

interface ModuleLoader {
  _load(request: string, parent: unknown, isMain: boolean): unknown;
}

Object.defineProperty(process, "platform", { value: "darwin" });
const loader = Module as unknown as ModuleLoader;
const load = loader._load.bind(loader);
loader._load = (request, parent, isMain) => {
  if (request.endsWith(".node")) throw Object.assign(new Error(`Cannot find module '${request}'`), { code: "MODULE_NOT_FOUND" });
  return load(request, parent, isMain);
};

test("on macOS without the addon, Core ML says so and llama.cpp serves", async () => {
  const { chooseBackend, coreMLAvailability } = await import("../../src/extension/backends/coreml/index");
  const availability = coreMLAvailability();
  assert.equal(availability.available, false);
  if (availability.available) return;
  assert.match(availability.reason, /no Core ML addon \(a VSIX built without a Mac/);
  assert.match(availability.reason, /stateful_chat_coreml\.node/, "the paths tried are named");
  const choice = chooseBackend({ setting: "auto", isCoreMLModel: true, coreML: availability });
  assert.equal(choice.backend, "llamacpp");
  assert.match(choice.reason, /^llama\.cpp: This installation has no Core ML addon/);
});
