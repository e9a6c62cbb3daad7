// Ledger == cache checked from llama.cpp's side (KvState.probeCache: llama_memory_seq_pos_min
// / _max of the sequence). Each test corrupts a real session on purpose, erasing one KV cell
// behind the ledger's and node-llama-cpp's backs, and checks that the checks see it: the
// count for a lost tail, the logits for a hole inside. The old check (KvState.length, i.e.
// node-llama-cpp's counter, against the ledger) is asserted to miss both.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { LlamaEngine } from "../../src/extension/backends/llamacpp/llama-engine";
import type { LlamaKvState } from "../../src/extension/backends/llamacpp/llama-state";
import { Conversation } from "../../src/extension/core/conversation";
import type { KvState } from "../../src/extension/core/engine";
import { cacheDiffersFromFreshPrefill, computesExactly } from "../support/cache-agreement";
import { defaultModelFile } from "../support/default-model";
import { InstrumentedEngine } from "../support/instrumented-engine";
import { skipWithoutOurBuild } from "../support/our-llama-build";
import { testThreads } from "../support/test-threads";

/**
 * A bug, simulated: llama.cpp loses the cell at `position` and nothing above it is told
 * (node-llama-cpp's addon call, not the sequence's API, which would update its counter).
 */
function eraseCellBehindTheLedger(state: KvState, position: number): void {
  const sequence = (state as unknown as { sequence: { _sequenceId: number; _context: { _ctx: { removeTokenCellsFromSequence(id: number, start: number, end: number): boolean } } } }).sequence;
  assert.ok(sequence._context._ctx.removeTokenCellsFromSequence(sequence._sequenceId, position, position + 1), "llama.cpp erased the cell");
}

describe("the cache probe sees a cache that came apart from its ledger (llama.cpp)", () => {
  let llama: LlamaEngine;
  let engine: InstrumentedEngine;
  before(async () => {
    llama = await LlamaEngine.load({ modelPath: defaultModelFile(), contextSize: 512, threads: testThreads() });
    engine = new InstrumentedEngine(llama);
  });
  after(async () => {
    await engine?.dispose();
  });

  async function chatWithOneTurn(): Promise<{ chat: Conversation; state: LlamaKvState }> {
    const chat = await Conversation.create(engine, { turn: { maxTokens: 6 }, prefillChunk: 16 });
    const state = engine.states.at(-1)!.inner as LlamaKvState;
    await chat.send({ text: "Name a color." });
    return { chat, state };
  }

  it("agrees with the ledger after a turn: llama.cpp holds positions 0..ledger-1", async () => {
    const { chat } = await chatWithOneTurn();
    try {
      const check = await chat.probeCache();
      assert.ok(check.probe, "llama.cpp answers");
      assert.equal(check.probe.source, "llama_memory_seq_pos_min/max");
      assert.equal(check.probe.held, chat.ledger.length);
      assert.equal(check.probe.firstPosition, 0);
      assert.equal(check.mismatch, undefined);
    } finally {
      await chat.dispose();
    }
  });

  it("a lost last cell: the count says so, where the old length check passed", async () => {
    const { chat, state } = await chatWithOneTurn();
    try {
      const ledger = chat.ledger.length;
      eraseCellBehindTheLedger(state, ledger - 1);
      assert.equal(state.length, ledger, "node-llama-cpp's counter (what the old check compared) did not see it");
      const check = await chat.probeCache();
      assert.equal(check.resyncPending, false);
      assert.equal(check.probe?.held, ledger - 1);
      assert.match(check.mismatch ?? "", new RegExp(`the engine holds ${ledger - 1} tokens, the ledger ${ledger}`));
    } finally {
      await chat.dispose();
    }
  });

  it("a lost first cell: the first position says so", async () => {
    const { chat, state } = await chatWithOneTurn();
    try {
      eraseCellBehindTheLedger(state, 0);
      const check = await chat.probeCache();
      assert.equal(check.probe?.firstPosition, 1);
      assert.match(check.mismatch ?? "", /its first position is 1, not 0/);
    } finally {
      await chat.dispose();
    }
  });

  it("a hole inside: positions cannot see it, the logits against a fresh prefill do", async (t) => {
    // One cell of ~40 moves the distribution by less than the prebuilt binary's rounding allowance.
    if (!computesExactly(llama)) return skipWithoutOurBuild(t, "only our build's logits are exact enough to see one missing cell");
    const { chat, state } = await chatWithOneTurn();
    try {
      const ledger = [...chat.ledger];
      assert.equal(await cacheDiffersFromFreshPrefill(state, llama, ledger), undefined, "an intact cache answers as a fresh prefill");
      // The user's message, in the middle of the prompt (the system prompt before it).
      eraseCellBehindTheLedger(state, ledger.length - 12);
      const check = await chat.probeCache();
      assert.equal(check.mismatch, undefined, "min and max positions are unchanged: the count cannot see a hole");
      assert.ok(await cacheDiffersFromFreshPrefill(state, llama, ledger), "the next-token distribution is not a fresh prefill's");
    } finally {
      await chat.dispose();
    }
  });
});
