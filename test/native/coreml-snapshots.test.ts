// KV snapshots of the Core ML session on the simulated model: the native saveState /
// loadState (round trip, refusals, serialized access), then CoreMLState and the core
// Session adopting a snapshot the way a restored chat does. The simulated model keeps its
// cache in padded state buffers, so a snapshot that copied a state wrongly would change
// the continuation.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync, writeFileSync, readFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import type { KvState } from "../../src/extension/core/engine";
import { ConcurrentAccessError } from "../../src/extension/core/errors";
import { Session } from "../../src/extension/core/session";
import type { NativeState, SimulatedModelSpec } from "../../src/extension/backends/coreml/addon";
import { CoreMLState } from "../../src/extension/backends/coreml/coreml-state";
import { loadCoreMLEngine } from "../../src/extension/backends/coreml/index";
import { SnapshotMismatchError } from "../../src/extension/backends/coreml/native-errors";
import { makeModelFolder } from "./fixtures";
import { builtAddon } from "./helpers";

const folder = mkdtempSync(path.join(os.tmpdir(), "coreml-snapshots-"));
after(() => rmSync(folder, { recursive: true, force: true }));
const greedy = { temperature: 0 };
const spec: SimulatedModelSpec = { capacity: 64, vocabSize: 97, queryLengths: [1, 8] };

async function continueGreedy(session: NativeState, first: number, steps: number): Promise<number[]> {
  const produced: number[] = [];
  let next = first;
  for (let step = 0; step < steps; step++) {
    next = await session.evaluate(Int32Array.of(next), greedy);
    produced.push(next);
  }
  return produced;
}

test("a session loaded from a snapshot continues exactly like the one saved", async () => {
  for (const stateType of ["float16", "float32"] as const) {
    const model = builtAddon().createSimulatedModel({ ...spec, stateType });
    const original = model.createSession();
    // Ids past 16 bits put half of each token in value_cache: both states must survive.
    const turn1 = [5, 70000, 3, 96, 131071, 2, 11, 9, 65536, 7, 1];
    const reply = await original.evaluate(Int32Array.from(turn1), greedy);
    const turn2 = [reply, 22, 23];
    const next = await original.evaluate(Int32Array.from(turn2), greedy);
    const held = [...turn1, ...turn2];
    const file = path.join(folder, `round-trip-${stateType}.kv`);
    const size = await original.saveState(file, Int32Array.from(held));
    assert.equal(size, statSync(file).size);
    assert.equal(original.position, held.length, "saving does not move the position");

    const withoutSnapshot = await continueGreedy(original, next, 6);

    // A fresh session of the same model, and one of a second instance (an engine restart).
    for (const target of [model, builtAddon().createSimulatedModel({ ...spec, stateType })]) {
      const restored = target.createSession();
      await restored.evaluate(Int32Array.of(1, 2, 3), null); // replaced wholesale
      assert.deepEqual([...(await restored.loadState(file))], held);
      assert.equal(restored.position, held.length);
      assert.deepEqual(await continueGreedy(restored, next, 6), withoutSnapshot);
      await restored.dispose();
      if (target !== model) target.dispose();
    }
    await original.dispose();
    model.dispose();
  }
});

test("a snapshot of a model with another shape is refused and the session stays usable", async () => {
  const small = builtAddon().createSimulatedModel({ ...spec, capacity: 32 });
  const source = small.createSession();
  await source.evaluate(Int32Array.of(4, 5, 6), null);
  const file = path.join(folder, "other-shape.kv");
  await source.saveState(file, Int32Array.of(4, 5, 6));

  const model = builtAddon().createSimulatedModel(spec);
  const session = model.createSession();
  await session.evaluate(Int32Array.of(9, 8), null);
  await assert.rejects(session.loadState(file), (error: Error & { code?: string }) => {
    assert.equal(error.code, "snapshot_mismatch");
    assert.match(error.message, /shape \[2, 1, 1, 32, 4\], the model's is \[2, 1, 1, 64, 4\]/);
    return true;
  });
  assert.equal(session.position, 2);
  const reference = model.createSession();
  assert.equal(await session.evaluate(Int32Array.of(7), greedy), await reference.evaluate(Int32Array.of(9, 8, 7), greedy));

  // Damaged files are refused the same way: a flipped magic byte, a truncated payload.
  const bytes = readFileSync(file);
  writeFileSync(path.join(folder, "bad-magic.kv"), Buffer.concat([Buffer.from("X"), bytes.subarray(1)]));
  await assert.rejects(session.loadState(path.join(folder, "bad-magic.kv")), { code: "snapshot_mismatch", message: /magic/ });
  const sameShape = model.createSession();
  await sameShape.evaluate(Int32Array.of(1, 2), null);
  const good = path.join(folder, "good.kv");
  await sameShape.saveState(good, Int32Array.of(1, 2));
  writeFileSync(path.join(folder, "short.kv"), readFileSync(good).subarray(0, -3));
  await assert.rejects(session.loadState(path.join(folder, "short.kv")), { code: "snapshot_mismatch" });
  await assert.rejects(session.loadState(path.join(folder, "missing.kv")), { code: "engine_failed" });
  await assert.rejects(session.saveState(path.join(folder, "lie.kv"), Int32Array.of(1, 2, 3)), { code: "engine_failed" });
  assert.equal(session.position, 3);
  for (const s of [source, session, reference, sameShape]) await s.dispose();
  small.dispose();
  model.dispose();
});

test("saveState and loadState run on the session's worker: never alongside another call", async () => {
  // A large state (some MB to write), so the save is still running when the next call comes:
  // a 64-slot one is written before JS gets there.
  const model = builtAddon().createSimulatedModel({ ...spec, capacity: 1 << 17, predictDelayMs: 30 });
  const session = model.createSession();
  await session.evaluate(Int32Array.of(1, 2, 3), null);
  const file = path.join(folder, "busy.kv");
  const running = session.evaluate(Int32Array.of(4), null);
  assert.equal(session.busy, true);
  await assert.rejects(session.saveState(file, Int32Array.of(1, 2, 3)), { code: "concurrent_access" });
  await assert.rejects(session.loadState(file), { code: "concurrent_access" });
  await running;
  const saving = session.saveState(file, Int32Array.of(1, 2, 3, 4));
  await assert.rejects(session.evaluate(Int32Array.of(5), null), { code: "concurrent_access" });
  assert.ok((await saving) > 0);
  await session.dispose();
  await assert.rejects(session.loadState(file), { code: "disposed" });
  model.dispose();
});

test("CoreMLState offers snapshots and the core Session adopts one instead of re-prefilling", async () => {
  const nativeModel = builtAddon().createSimulatedModel({ capacity: 128, vocabSize: 97, queryLengths: [1, 4, 8] });
  const engine = await loadCoreMLEngine({ modelPath: makeModelFolder(), computeUnits: "cpuAndNeuralEngine", nativeModel });
  const stateA = await engine.createState();
  assert.ok(stateA instanceof CoreMLState);
  assert.equal(typeof stateA.saveSnapshot, "function");
  assert.equal(typeof stateA.loadSnapshot, "function");

  const chatA = new Session(stateA, engine.tokenizer, 8);
  await chatA.prefill([20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
  for await (const token of chatA.generate({ maxTokens: 4, sampling: greedy })) void token;
  const file = path.join(folder, "core-session.kv");
  const size = await chatA.saveSnapshot(file);
  assert.ok(size !== undefined && size > 0);

  const stateB = await engine.createState();
  const chatB = new Session(stateB, engine.tokenizer, 8);
  await chatB.restore(chatA.tokens);
  assert.equal(await chatB.loadSnapshot(file), true);
  assert.equal(chatB.evaluated, chatA.tokens.length, "adopted: nothing left to re-prefill");
  assert.equal(stateB.length, chatA.tokens.length);

  // Both continue identically; the restored one re-evaluates at most the held-back token.
  await chatA.prefill([40, 41]);
  await chatB.prefill([40, 41]);
  const fromA: number[] = [];
  const fromB: number[] = [];
  for await (const token of chatA.generate({ maxTokens: 5, sampling: greedy })) fromA.push(token);
  for await (const token of chatB.generate({ maxTokens: 5, sampling: greedy })) fromB.push(token);
  assert.deepEqual(fromB, fromA);
  assert.ok(chatB.counters.prefilled <= 3, `re-prefilled ${chatB.counters.prefilled} tokens`);

  // Another model's snapshot: the state refuses it with a typed error, the Session falls back.
  const otherModel = builtAddon().createSimulatedModel({ capacity: 64, vocabSize: 97 });
  const otherEngine = await loadCoreMLEngine({ modelPath: makeModelFolder(), computeUnits: "cpuAndNeuralEngine", nativeModel: otherModel });
  const stateC: KvState = await otherEngine.createState();
  await assert.rejects(stateC.loadSnapshot!(file), SnapshotMismatchError);
  assert.equal(stateC.length, 0);
  const chatC = new Session(stateC, otherEngine.tokenizer, 8);
  await chatC.restore(chatA.tokens.slice(0, 10));
  assert.equal(await chatC.loadSnapshot(file), false);
  assert.equal(chatC.evaluated, 0, "re-prefilled lazily instead");

  // Serialized like every other call of the state.
  const running = stateA.evaluate([1]);
  await assert.rejects(stateA.saveSnapshot(file, chatA.tokens), ConcurrentAccessError);
  await running;
  await engine.dispose();
  await otherEngine.dispose();
});
