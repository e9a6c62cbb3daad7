// The declared surface (src/extension/backends/coreml/addon.ts) matches the binary, and
// the binary answers on this OS: loads, reports why Core ML is not here, rejects cleanly.
import assert from "node:assert/strict";
import { test } from "node:test";
import { EXPECTED_SURFACE_VERSION } from "../../src/extension/backends/coreml/addon";
import { builtAddon } from "./helpers";

// Names per handle, as declared in addon.ts. Kept as data so a drift on either side fails.
const DECLARED = {
  module: ["compileModel", "createSimulatedModel", "liveModelCount", "loadModel", "platformSupport", "surfaceVersion"],
  model: ["createSession", "dispose", "info"],
  session: ["busy", "capacity", "dispose", "evaluate", "evaluateTopK", "loadState", "position", "reset", "saveState", "truncate", "verify"],
  info: ["capacity", "causalMask", "causalMaskType", "details", "inputIds", "keyCache", "logits", "queryLengths", "valueCache"],
};

function membersOf(value: object): string[] {
  const names = new Set<string>(Object.keys(value));
  for (let proto = Object.getPrototypeOf(value); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) if (name !== "constructor") names.add(name);
  }
  return [...names].sort();
}

test("the addon exports exactly the declared surface", async () => {
  const addon = builtAddon();
  assert.equal(addon.surfaceVersion, EXPECTED_SURFACE_VERSION);
  assert.deepEqual(membersOf(addon), DECLARED.module);
  const model = addon.createSimulatedModel({});
  assert.deepEqual(membersOf(model), DECLARED.model);
  assert.deepEqual(Object.keys(model.info()).sort(), DECLARED.info);
  const session = model.createSession();
  assert.deepEqual(membersOf(session), DECLARED.session);
  assert.equal(typeof session.position, "number");
  assert.equal(typeof session.busy, "boolean");
  await session.dispose();
  model.dispose();
});

test("off macOS the addon loads and says Core ML needs macOS 15", { skip: process.platform === "darwin" }, async () => {
  const addon = builtAddon();
  const support = addon.platformSupport();
  assert.equal(support.supported, false);
  assert.match(support.reason ?? "", /Core ML needs macOS 15/);
  await assert.rejects(addon.loadModel("/nowhere.mlmodelc", { computeUnits: "cpuAndNeuralEngine" }), (error: Error & { code?: string }) => {
    assert.equal(error.code, "backend_unavailable");
    assert.match(error.message, /Core ML needs macOS 15/);
    return true;
  });
  await assert.rejects(addon.compileModel("/a.mlpackage", "/b.mlmodelc"), { code: "backend_unavailable" });
});

test("the native session refuses overlapping calls itself", async () => {
  const model = builtAddon().createSimulatedModel({ capacity: 64, predictDelayMs: 30 });
  const session = model.createSession();
  const first = session.evaluate(Int32Array.of(1, 2, 3), { temperature: 0 });
  assert.equal(session.busy, true);
  await assert.rejects(session.evaluate(Int32Array.of(4), null), { code: "concurrent_access" });
  await assert.rejects(session.reset(), { code: "concurrent_access" });
  assert.ok((await first) >= 0);
  assert.equal(session.position, 3);
  // Idle again as soon as the promise settles: chaining is never refused.
  await session.evaluate(Int32Array.of(4), null);
  assert.equal(session.position, 4);
  await session.dispose();
  await session.dispose();
  await assert.rejects(session.evaluate(Int32Array.of(1), null), { code: "disposed" });
  model.dispose();
});

test("capacity refusals carry the numbers and leave the state untouched", async () => {
  const model = builtAddon().createSimulatedModel({ capacity: 8 });
  const session = model.createSession();
  await session.evaluate(Int32Array.of(1, 2, 3, 4, 5), null);
  await assert.rejects(session.evaluate(Int32Array.of(1, 2, 3, 4), { temperature: 0 }), (error: Error & Record<string, unknown>) => {
    assert.equal(error.code, "capacity_exceeded");
    assert.deepEqual([error.position, error.requested, error.capacity], [5, 4, 8]);
    return true;
  });
  assert.equal(session.position, 5);
  await session.dispose();
  model.dispose();
});

test("a failing prediction rejects with the native message", async () => {
  const model = builtAddon().createSimulatedModel({ failOnPrediction: 0 });
  const session = model.createSession();
  await assert.rejects(session.evaluate(Int32Array.of(1), { temperature: 0 }), { code: "engine_failed", message: /simulated prediction failure/ });
  assert.ok((await session.evaluate(Int32Array.of(1), { temperature: 0 })) >= 0, "usable after a failure");
  await session.dispose();
  model.dispose();
});

test("dispose() frees the native model at once, after its last session", async () => {
  const addon = builtAddon();
  const before = addon.liveModelCount();
  const model = addon.createSimulatedModel({ capacity: 16 });
  const session = model.createSession();
  assert.equal(addon.liveModelCount(), before + 1);
  model.dispose();
  assert.equal(addon.liveModelCount(), before + 1, "a live session still uses the model");
  await session.evaluate(Int32Array.of(1, 2), { temperature: 0 });
  await session.dispose();
  assert.equal(addon.liveModelCount(), before, "freed without waiting for garbage collection");
});
