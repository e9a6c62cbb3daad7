// CoreMLState.verify on the simulated native model: each result is what a single-token
// evaluate would sample there (greedy and seeded, chunked batches, a model whose logits
// hold only the last position), capacity is refused before the addon, and after verify +
// truncate the state continues exactly as a fresh prefill of the ledger (ledger == cache),
// also under the speculative reply loop of core/speculation.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Engine, KvState, SamplingOptions } from "../../src/extension/core/engine";
import { CapacityError } from "../../src/extension/core/errors";
import type { SimulatedModelSpec } from "../../src/extension/backends/coreml/addon";
import { loadCoreMLEngine } from "../../src/extension/backends/coreml/index";
import { DraftPolicy } from "../../src/extension/core/speculation/draft-policy";
import { SpeculativeKvState } from "../../src/extension/core/speculation/speculative-state";
import { makeModelFolder } from "./fixtures";
import { builtAddon } from "./helpers";

type Verifiable = KvState & { verify: NonNullable<KvState["verify"]> };

async function engineWith(spec: SimulatedModelSpec): Promise<Engine> {
  const nativeModel = builtAddon().createSimulatedModel(spec);
  return loadCoreMLEngine({ modelPath: makeModelFolder(), computeUnits: "cpuAndNeuralEngine", nativeModel });
}

async function verifiable(engine: Engine): Promise<Verifiable> {
  const state = await engine.createState();
  assert.ok(state.verify, "Core ML states verify");
  return state as Verifiable;
}

const greedy: SamplingOptions = { temperature: 0 };
const seeded: SamplingOptions = { temperature: 1.3, topP: 0.95, seed: 17 };
const prompt = Array.from({ length: 23 }, (_, i) => (i * 5) % 31);
const draft = [4, 8, 15, 16, 23, 42, 7, 1, 9];

/** Single-token evaluate after the prompt, one drafted token at a time. */
async function stepByStep(engine: Engine, sample: SamplingOptions): Promise<number[]> {
  const state = await engine.createState();
  await state.evaluate(prompt);
  const out: number[] = [];
  for (const token of draft) out.push((await state.evaluate([token], sample))!);
  await state.dispose();
  return out;
}

const SHAPES: Record<string, SimulatedModelSpec> = {
  "range-shaped": { capacity: 96 },
  "prefill q=16 and a decode function": { capacity: 96, queryLengths: [16], decodeMaskType: "float32" },
  "{1, 16} with padded fp16 rows": { capacity: 96, queryLengths: [1, 16], logitsType: "float16", logitsRowPadding: 3 },
  "last position's logits only": { capacity: 96, queryLengths: [1, 16], lastLogitsOnly: true },
};

for (const [name, spec] of Object.entries(SHAPES)) {
  test(`verify samples what single-token evaluate does (${name})`, async () => {
    const engine = await engineWith(spec);
    for (const sample of [greedy, seeded]) {
      const state = await verifiable(engine);
      await state.evaluate(prompt);
      assert.deepEqual(await state.verify(draft, sample), await stepByStep(engine, sample), JSON.stringify(sample));
      assert.equal(state.length, prompt.length + draft.length);
      await state.dispose();
    }
    await engine.dispose();
  });
}

test("after verify and truncate the state continues like a fresh prefill of the ledger", async () => {
  const engine = await engineWith({ capacity: 96, queryLengths: [1, 16] });
  const state = await verifiable(engine);
  await state.evaluate(prompt);
  const out = await state.verify(draft, greedy);
  const kept = 4;
  await state.truncate(prompt.length + kept);
  const ledger = [...prompt, ...draft.slice(0, kept)];
  const fresh = await engine.createState();
  let a = await state.evaluate([out[kept - 1]!], greedy);
  let b = await fresh.evaluate([...ledger, out[kept - 1]!], greedy);
  for (let step = 0; step < 8; step++) {
    assert.equal(a, b, `step ${step}`);
    a = await state.evaluate([a!], greedy);
    b = await fresh.evaluate([b!], greedy);
  }
  assert.equal(state.length, fresh.length);
  await engine.dispose();
});

test("verify past capacity is refused before the addon, with a typed error", async () => {
  const engine = await engineWith({ capacity: 30 });
  const state = await verifiable(engine);
  await state.evaluate(prompt);
  await assert.rejects(state.verify(draft, greedy), (error: unknown) => {
    assert.ok(error instanceof CapacityError);
    assert.deepEqual([error.position, error.requested, error.capacity], [23, 9, 30]);
    return true;
  });
  assert.equal(state.length, 23);
  assert.equal((await state.verify(draft.slice(0, 7), greedy)).length, 7);
  assert.equal(state.length, 30);
  await engine.dispose();
});

test("speculative replies over Core ML states are the plain greedy replies, and the cache is the ledger", async () => {
  // A 5-token vocabulary repeats itself, so prompt lookup finds drafts the target partly accepts.
  const engine = await engineWith({ capacity: 256, vocabSize: 5, queryLengths: [1, 16] });
  const tokenizer = { isEndOfGeneration: () => false };
  const cost = { relative: Array.from({ length: 17 }, (_, k) => 1 + k / 16) };
  const speculative = new SpeculativeKvState(await verifiable(engine), {
    lookup: true,
    policy: new DraftPolicy(cost, { maxDraft: 16, gate: false }),
    tokenizer,
  });
  const plain = await engine.createState();
  const input = [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 1, 3];
  const replyTokens: number[] = [];
  const run = speculative.generateReply!(input, { sample: greedy, maxTokens: 60 }, (token) => replyTokens.push(token));
  const length = await run.done;
  const expected = [(await plain.evaluate(input, greedy))!];
  while (expected.length < 60) expected.push((await plain.evaluate([expected.at(-1)!], greedy))!);
  assert.deepEqual(replyTokens, expected);
  assert.equal(length, plain.length);
  assert.deepEqual(speculative.heldTokens, [...input, ...expected.slice(0, -1)]);
  const counts = run.speculation!()!;
  assert.ok(counts.drafted > 0 && counts.accepted > 0, `verify was exercised: ${JSON.stringify(counts)}`);
  // The cache after the reply is the ledger's: the next token matches a fresh prefill.
  const fresh = await engine.createState();
  assert.equal(await speculative.evaluate([expected.at(-1)!], greedy), await fresh.evaluate([...input, ...expected], greedy));
  await engine.dispose();
});
