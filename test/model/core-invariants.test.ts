// Invariants 1-3 and 5 on the real default model.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { LlamaEngine } from "../../src/extension/backends/llamacpp/llama-engine";
import { CapacityError } from "../../src/extension/core/errors";
import type { TurnStats } from "../../src/extension/core/stats";
import { createHarness } from "../support/core-harness";
import { defaultModelFile } from "../support/default-model";
import {
  freshDistributionAt,
  greedyFromFresh,
  greedyFromState,
  InstrumentedEngine,
  topGap,
  totalVariation,
  type InstrumentedState,
} from "../support/instrumented-engine";
import { ourLlamaBuildLoaded, skipWithoutOurBuild } from "../support/our-llama-build";
import { testThreads } from "../support/test-threads";

const SCRIPT = [
  "Write a Python function that returns the square of a number.",
  "Now add a docstring to it.",
  "What does the ** operator do in Python?",
  "Give me a one-line lambda version.",
  "Thanks! What is 2 + 2?",
];

describe("core invariants on the default model", () => {
  let engine: InstrumentedEngine;

  before(async () => {
    engine = new InstrumentedEngine(
      await LlamaEngine.load({ modelPath: defaultModelFile(), contextSize: 2048, threads: testThreads() }),
    );
  });
  after(async () => {
    await engine?.dispose();
  });

  async function converse(strategy: "stateful" | "naive", record = false) {
    const harness = await createHarness(engine, { strategy, maxTokens: 48 });
    (harness.state as InstrumentedState).recordDistributions = record;
    const stats: TurnStats[] = [];
    const ledgerBeforeTurn: number[] = [];
    const callsBeforeTurn: number[] = [];
    for (const text of SCRIPT) {
      ledgerBeforeTurn.push(harness.session.position);
      callsBeforeTurn.push((harness.state as InstrumentedState).calls.length);
      stats.push(await harness.runner.run({ text }, new AbortController().signal));
    }
    return { harness, stats, ledgerBeforeTurn, callsBeforeTurn };
  }

  // llama.cpp computes a batch of prompt tokens with different kernels than one token at a
  // time, so the logits of a stateful (incremental) run and a naive (one big prefill) run
  // differ in the last bits. Greedy replies are therefore compared exactly up to the first
  // near-tie (top-2 probability gap below NEAR_TIE), and distributions with a stated tolerance.
  // Measured on the default model with the prebuilt binary: TVD ≤ 0.003 where the next token
  // is clear, below 0.05 at flat distributions, the same at 1 and 2 threads. The top-1 token
  // must still agree wherever there is no near-tie. (Our own build agrees exactly: see below.)
  const NEAR_TIE = 0.1;
  const MAX_TVD = 0.1;

  it("stateful replies equal naive (full re-prefill) replies, greedy, up to a numerical near-tie", async () => {
    const stateful = await converse("stateful", true);
    const naive = await converse("naive");
    assert.equal(stateful.stats[0].reply, naive.stats[0].reply, "turn 1 is computed identically");
    const distributions = (stateful.harness.state as InstrumentedState).distributions;
    let compared = 0;
    for (let i = 0; i < SCRIPT.length; i++) {
      const a = stateful.stats[i];
      const b = naive.stats[i];
      const tokensA = stateful.harness.session.tokens.slice(a.position - a.replyTokens, a.position);
      const tokensB = naive.harness.session.tokens.slice(b.position - b.replyTokens, b.position);
      if (a.reply === b.reply) {
        compared++;
        continue;
      }
      let j = 0;
      while (j < tokensA.length && tokensA[j] === tokensB[j]) j++;
      const at = distributions.find((d) => d.position === a.position - a.replyTokens + j);
      assert.ok(at, `distribution recorded at turn ${i + 1}, reply token ${j}`);
      assert.ok(topGap(at.top) < NEAR_TIE, `turn ${i + 1} diverged at token ${j} without a near-tie: ${JSON.stringify(at.top)}`);
      break; // after a legitimate divergence the two conversations differ
    }
    assert.ok(compared >= 1);
    // Naive re-prefills everything every turn; stateful only the new part.
    for (let i = 1; i < SCRIPT.length; i++) {
      assert.equal(naive.stats[i].cached, 0);
      assert.ok(naive.stats[i].prefilled > stateful.stats[i].prefilled);
      assert.equal(naive.stats[i].prefilled, naive.stats[i].position - naive.stats[i].replyTokens);
    }
    await stateful.harness.session.dispose();
    await naive.harness.session.dispose();
  });

  it("next-token distributions of the stateful session match a fresh state fed the ledger (TVD <= 0.1)", async () => {
    const { harness, stats } = await converse("stateful", true);
    const distributions = (harness.state as InstrumentedState).distributions;
    const ledger = harness.session.tokens;
    for (const s of stats) {
      const start = s.position - s.replyTokens;
      const recorded = distributions.find((d) => d.position === start);
      assert.ok(recorded, `turn ${s.turn} start recorded`);
      const fresh = await freshDistributionAt(engine, ledger.slice(0, start));
      const tvd = totalVariation(recorded.top, fresh);
      assert.ok(tvd <= MAX_TVD, `turn ${s.turn}: TVD ${tvd}`);
      if (topGap(fresh) >= NEAR_TIE) assert.equal(recorded.top[0][0], fresh[0][0]);
    }
    await harness.session.dispose();
  });

  // Our build's flash attention (src/tools/llama-build/patches/ggml-flash-attn-grouped.patch) runs a
  // token alone, a short prompt and a long prefill batch through the same per-row arithmetic,
  // so with it there is no near-tie to allow for: the cache and a fresh prefill agree bit for bit.
  it("with our llama.cpp build, the session's next-token distributions and greedy continuation equal a fresh prefill's exactly", async (t) => {
    if (!(await ourLlamaBuildLoaded())) return skipWithoutOurBuild(t, "the prebuilt binary attends to one token with other kernels than to a batch");
    const { harness, stats } = await converse("stateful", true);
    const distributions = (harness.state as InstrumentedState).distributions;
    const ledger = [...harness.session.tokens];
    for (const s of stats) {
      const start = s.position - s.replyTokens;
      const recorded = distributions.find((d) => d.position === start);
      assert.ok(recorded, `turn ${s.turn} start recorded`);
      assert.deepEqual(recorded.top, await freshDistributionAt(engine, ledger.slice(0, start)), `turn ${s.turn}`);
    }
    const fromSession = await greedyFromState((harness.state as InstrumentedState).inner, ledger, 24);
    assert.deepEqual(fromSession, await greedyFromFresh(engine, ledger, 24));
    await harness.session.dispose();
  });

  it("ledger == cache: greedy decoding from the session equals a fresh state fed the ledger", async () => {
    const { harness } = await converse("stateful");
    const ledger = [...harness.session.tokens];
    assert.equal(harness.state.length, ledger.length, "every ledger token is in the cache after a turn");
    const fromSession = await greedyFromState((harness.state as InstrumentedState).inner, ledger, 12);
    const fromFresh = await greedyFromFresh(engine, ledger, 12);
    let j = 0;
    while (j < fromSession.length && fromSession[j] === fromFresh[j]) j++;
    if (j < fromSession.length) {
      // Only a numerical near-tie may separate them (see NEAR_TIE above).
      const at = await freshDistributionAt(engine, [...ledger, ...fromFresh.slice(0, j)]);
      assert.ok(topGap(at) < NEAR_TIE, `diverged at token ${j} without a near-tie: ${JSON.stringify(at)}`);
    }
    await harness.session.dispose();
  });

  it("from turn 2 on, tokens prefilled == tokens appended to the ledger this turn", async () => {
    const { harness, stats, ledgerBeforeTurn, callsBeforeTurn } = await converse("stateful");
    const state = harness.state as InstrumentedState;
    for (let i = 1; i < stats.length; i++) {
      const s = stats[i];
      const appendedPrompt = s.position - s.replyTokens - ledgerBeforeTurn[i];
      assert.equal(s.prefilled, appendedPrompt, `turn ${i + 1}: reported prefill`);
      assert.equal(s.cached, ledgerBeforeTurn[i], `turn ${i + 1}: everything before the turn was reused`);
      const evaluated = state.evaluatedTokens(callsBeforeTurn[i]) - (i + 1 < stats.length ? state.evaluatedTokens(callsBeforeTurn[i + 1]) : 0);
      assert.equal(evaluated, appendedPrompt + s.replyTokens, `turn ${i + 1}: tokens the backend actually evaluated`);
    }
    await harness.session.dispose();
  });

  it("never writes past capacity: the session refuses with a typed error before calling the engine", async () => {
    const harness = await createHarness(engine, { maxTokens: 8 });
    const filler = engine.tokenizer.encode("word ".repeat(10), { specials: false });
    const calls = () => (harness.state as InstrumentedState).calls.length;
    await harness.session.prefill(new Array(harness.session.capacity - 5).fill(filler[0]));
    const before = calls();
    await assert.rejects(harness.session.prefill(new Array(6).fill(filler[0])), CapacityError);
    assert.equal(calls(), before, "the engine was not called");
    assert.equal(harness.session.position, harness.session.capacity - 5);
    await harness.session.dispose();
  });
});
