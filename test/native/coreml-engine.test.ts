// The coreml backend's Engine/KvState over the simulated native model: the contract's
// invariants that do not need Core ML itself (ledger == cache after chunking, truncation
// and reset; capacity refused before the engine; serialized access; disposal cascade).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Engine } from "../../src/extension/core/engine";
import { CapacityError, ConcurrentAccessError, DisposedError } from "../../src/extension/core/errors";
import type { SimulatedModelSpec } from "../../src/extension/backends/coreml/addon";
import { loadCoreMLEngine } from "../../src/extension/backends/coreml/index";
import { makeModelFolder } from "./fixtures";
import { builtAddon } from "./helpers";

async function engineWith(spec: SimulatedModelSpec): Promise<Engine> {
  const nativeModel = builtAddon().createSimulatedModel(spec);
  return loadCoreMLEngine({ modelPath: makeModelFolder(), computeUnits: "cpuAndNeuralEngine", nativeModel });
}

const greedy = { temperature: 0 };

test("engine info, tokenizer and template come from the model folder", async () => {
  const engine = await engineWith({ capacity: 256, vocabSize: 49152 });
  assert.equal(engine.info.backend, "coreml");
  assert.equal(engine.info.capacity, 256);
  assert.equal(engine.info.modelName, "model");
  assert.match(engine.chatTemplate, /im_start/);
  assert.deepEqual(engine.tokenizer.encode("Hello, world!", { specials: false }), [19556, 28, 905, 17]);
  await engine.dispose();
});

test("ledger == cache: chunks, truncate and reset give a fresh prefill's next token", async () => {
  const engine = await engineWith({ capacity: 200, vocabSize: 97, queryLengths: [1, 16], logitsType: "float16", logitsRowPadding: 5 });
  const ledger = Array.from({ length: 70 }, (_, i) => (i * 13) % 97);
  const state = await engine.createState();
  await state.evaluate(ledger.slice(0, 33));
  await state.evaluate(ledger.slice(33, 60));
  await state.truncate(40); // roll back a "cancelled" prefill
  const viaHistory = await state.evaluate(ledger.slice(40), greedy);
  assert.equal(state.length, 70);

  const fresh = await engine.createState();
  assert.equal(await fresh.evaluate(ledger, greedy), viaHistory);

  await state.reset();
  assert.equal(state.length, 0);
  assert.equal(await state.evaluate(ledger, greedy), viaHistory);
  await engine.dispose();
});

test("generation by single-token steps matches across states, and seeded sampling replays", async () => {
  const engine = await engineWith({ capacity: 128 });
  const a = await engine.createState();
  const b = await engine.createState();
  let tokenA = await a.evaluate([1, 2, 3], greedy);
  let tokenB = await b.evaluate([1, 2, 3], greedy);
  for (let step = 0; step < 10; step++) {
    assert.equal(tokenA, tokenB);
    tokenA = await a.evaluate([tokenA!], greedy);
    tokenB = await b.evaluate([tokenB!], greedy);
  }
  const seeded = { temperature: 1.2, topP: 0.9, seed: 99 };
  await a.reset();
  await b.reset();
  assert.equal(await a.evaluate([5, 6], seeded), await b.evaluate([5, 6], seeded));
  assert.equal(await a.evaluate([7], undefined), undefined);
  await engine.dispose();
});

test("evaluateTopK ranks the greedy token first with probabilities", async () => {
  const engine = await engineWith({ capacity: 64 });
  const ranked = await engine.createState();
  const greedyState = await engine.createState();
  const top = await (ranked as unknown as { evaluateTopK(t: readonly number[], k: number): Promise<Array<readonly [number, number]>> }).evaluateTopK([3, 1, 4, 1, 5], 4);
  assert.equal(top.length, 4);
  assert.equal(top[0]![0], await greedyState.evaluate([3, 1, 4, 1, 5], greedy));
  assert.ok(top[0]![1] >= top[1]![1] && top[0]![1] <= 1);
  assert.equal(ranked.length, 5);
  await engine.dispose();
});

test("capacity is refused before the engine, with a typed error", async () => {
  const engine = await engineWith({ capacity: 10 });
  const state = await engine.createState();
  await state.evaluate([1, 2, 3, 4, 5, 6]);
  await assert.rejects(state.evaluate([1, 2, 3, 4, 5], greedy), (error: unknown) => {
    assert.ok(error instanceof CapacityError);
    assert.deepEqual([error.position, error.requested, error.capacity], [6, 5, 10]);
    return true;
  });
  assert.equal(state.length, 6);
  assert.ok((await state.evaluate([1, 2, 3, 4], greedy)) !== undefined);
  await engine.dispose();
});

test("overlapping calls are refused with ConcurrentAccessError", async () => {
  const engine = await engineWith({ capacity: 64, predictDelayMs: 25 });
  const state = await engine.createState();
  const running = state.evaluate([1, 2, 3], greedy);
  await assert.rejects(state.evaluate([4]), ConcurrentAccessError);
  await assert.rejects(state.truncate(0), ConcurrentAccessError);
  await running;
  assert.equal(state.length, 3);
  await engine.dispose();
});

test("dispose cascades and is idempotent; disposed objects throw named errors", async () => {
  const engine = await engineWith({ capacity: 32 });
  const state = await engine.createState();
  await engine.dispose();
  await engine.dispose();
  await assert.rejects(state.evaluate([1]), DisposedError);
  await assert.rejects(engine.createState(), DisposedError);
});
