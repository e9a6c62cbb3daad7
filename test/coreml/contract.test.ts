// The backend contract against a real converted Core ML model, on a Mac with macOS 15+.
// Point STATEFUL_CHAT_COREML_MODEL at a folder with a stateful .mlpackage/.mlmodelc and
// its tokenizer files (e.g. the converter's output), then `npm run test:coreml`.
// Elsewhere every test skips, with a "SKIPPED: <why>" line and counted as skipped, never
// as passed; with STATEFUL_CHAT_REQUIRE_COREML=1 (test/coreml/run-matrix.sh, the macOS
// workflow) that is a failure instead. Not run in the Linux CI (no Mac).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { CapacityError, ConcurrentAccessError } from "../../src/extension/core/errors";
import { coreMLAvailability, loadCoreMLEngine } from "../../src/extension/backends/coreml/index";
import { engineContract } from "../contract/engine-contract";

const availability = coreMLAvailability();
const modelPath = process.env.STATEFUL_CHAT_COREML_MODEL;
const skip = !availability.available
  ? `Core ML is unavailable: ${availability.reason}`
  : !modelPath
    ? "set STATEFUL_CHAT_COREML_MODEL to a converted Core ML model folder"
    : false;
if (skip && process.env.STATEFUL_CHAT_REQUIRE_COREML === "1") {
  test("Core ML is available and a model is given (STATEFUL_CHAT_REQUIRE_COREML=1)", () => assert.fail(skip));
} else if (skip) {
  console.error(`SKIPPED: the Core ML contract suite: ${skip}`);
}

const computeUnits = (process.env.STATEFUL_CHAT_COREML_UNITS ?? "auto") as "cpuAndNeuralEngine" | "all" | "cpuAndGPU" | "cpuOnly" | "auto";
const greedy = { temperature: 0 };

test("Core ML engine: ledger == cache across chunks, truncate and reset", { skip }, async () => {
  const engine = await loadCoreMLEngine({ modelPath: modelPath!, computeUnits });
  try {
    const prompt = engine.tokenizer.encode("<|im_start|>user\nWrite a TypeScript function that adds two numbers.<|im_end|>\n<|im_start|>assistant\n", { specials: true });
    const fresh = await engine.createState();
    const reference: number[] = [];
    let next = await fresh.evaluate(prompt, greedy);
    for (let i = 0; i < 16; i++) {
      reference.push(next!);
      next = await fresh.evaluate([next!], greedy);
    }
    const chunked = await engine.createState();
    const half = Math.floor(prompt.length / 2);
    await chunked.evaluate(prompt.slice(0, half));
    await chunked.evaluate([1, 2, 3]);
    await chunked.truncate(half);
    let token = await chunked.evaluate(prompt.slice(half), greedy);
    const replay: number[] = [];
    for (let i = 0; i < 16; i++) {
      replay.push(token!);
      token = await chunked.evaluate([token!], greedy);
    }
    assert.deepEqual(replay, reference);
    await chunked.reset();
    assert.equal(chunked.length, 0);
    assert.equal(await chunked.evaluate(prompt, greedy), reference[0]);
  } finally {
    await engine.dispose();
  }
});

test("Core ML engine: capacity and overlap refusals", { skip }, async () => {
  const engine = await loadCoreMLEngine({ modelPath: modelPath!, computeUnits });
  try {
    const state = await engine.createState();
    await assert.rejects(state.evaluate(new Array(engine.info.capacity + 1).fill(1)), CapacityError);
    assert.equal(state.length, 0);
    const running = state.evaluate([1, 2, 3, 4], greedy);
    await assert.rejects(state.evaluate([5]), ConcurrentAccessError);
    await running;
  } finally {
    await engine.dispose();
  }
});

// What only a Mac proves about snapshots: the MLState buffers copied out and back through
// getMultiArrayForStateNamed: give the same continuation as the state that was saved.
test("Core ML engine: a KV snapshot loaded into a new state continues identically", { skip }, async () => {
  const engine = await loadCoreMLEngine({ modelPath: modelPath!, computeUnits });
  const folder = mkdtempSync(path.join(os.tmpdir(), "coreml-snapshot-"));
  try {
    const prompt = engine.tokenizer.encode("<|im_start|>user\nName three prime numbers.<|im_end|>\n<|im_start|>assistant\n", { specials: true });
    const original = await engine.createState();
    const first = await original.evaluate(prompt, greedy);
    const file = path.join(folder, "state.kv");
    const size = await original.saveSnapshot!(file, prompt);
    assert.equal(size, statSync(file).size);
    const restored = await engine.createState();
    assert.deepEqual([...(await restored.loadSnapshot!(file))], prompt);
    assert.equal(restored.length, prompt.length);
    let a = first;
    let b = first;
    for (let i = 0; i < 16; i++) {
      a = await original.evaluate([a!], greedy);
      b = await restored.evaluate([b!], greedy);
      assert.equal(b, a, `step ${i}`);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
    await engine.dispose();
  }
});

// What only a Mac proves about verify: the logits rows of a real batch (the prefill
// function's, overlapping chunks included) give the greedy tokens of single-token decoding,
// and how long a batch takes beside single decodes (printed, for models/README.md).
test("Core ML engine: verify of a greedy continuation agrees with it, row by row", { skip }, async () => {
  const engine = await loadCoreMLEngine({ modelPath: modelPath!, computeUnits });
  try {
    const prompt = engine.tokenizer.encode("<|im_start|>user\nWrite a TypeScript function that reverses a string.<|im_end|>\n<|im_start|>assistant\n", { specials: true });
    const single = await engine.createState();
    const first = (await single.evaluate(prompt, greedy))!;
    const continuation: number[] = [first];
    const started = performance.now();
    for (let i = 0; i < 16; i++) continuation.push((await single.evaluate([continuation.at(-1)!], greedy))!);
    const singleMs = (performance.now() - started) / 16;
    const batch = await engine.createState();
    await batch.evaluate(prompt);
    const verifyStarted = performance.now();
    const verified = await batch.verify!(continuation.slice(0, 16), greedy);
    const verifyMs = performance.now() - verifyStarted;
    // A mismatch here is a numerical difference between the batch and single-token paths
    // (fp16, another function) at a near-tie: the tokens say where.
    assert.deepEqual(verified, continuation.slice(1), `verify ${verified.join(",")} vs decode ${continuation.slice(1).join(",")}`);
    console.log(`# verify of 16 tokens: ${verifyMs.toFixed(1)} ms; one decode: ${singleMs.toFixed(1)} ms (${(verifyMs / singleMs).toFixed(2)}x)`);
    await batch.truncate(prompt.length + 4);
    assert.equal(await batch.evaluate([continuation[4]!], greedy), continuation[5]);
  } finally {
    await engine.dispose();
  }
});

// The contract every backend passes, on the real Core ML model.
if (!skip) engineContract(`coreml (${computeUnits})`, () => loadCoreMLEngine({ modelPath: modelPath!, computeUnits }));
