// Session / Conversation behaviour on the engine test double (fast, no model): cancel within
// one chunk, exact rollback, capacity guard, overflow and reset. Every test runs twice: with
// the core's step loop, and with a backend that has its own reply loop (generateReply),
// which runs ahead of a cancel.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import { CancelledError, CapacityError, EmptyMessageError, MessageTooLargeError } from "../../src/extension/core/errors";
import { Session } from "../../src/extension/core/session";
import { ByteTokenizer, FakeEngine, HashState, nextToken } from "../support/fake-engine";

for (const replyLoop of [false, true]) {
const loop = replyLoop ? " (backend reply loop)" : "";

describe(`Session on the engine test double${loop}`, () => {
  it("cancel during prefill stops within one chunk and rolls back exactly", async () => {
    const state = new HashState(4096, 10, replyLoop);
    const session = new Session(state, new ByteTokenizer(), 16);
    await session.prefill(new Array(10).fill(97));
    const controller = new AbortController();
    let calls = 0;
    state.beforeEvaluate = () => {
      calls++;
      if (calls === 2) controller.abort();
    };
    await assert.rejects(session.prefill(new Array(200).fill(98), controller.signal), CancelledError);
    assert.equal(calls, 2, "no chunk started after the abort");
    assert.equal(session.position, 10);
    assert.equal(state.length, session.evaluated);
    assert.deepEqual(state.cache, new Array(state.length).fill(97));
  });

  it("stop during generation ends within one token and the ledger holds what was computed", async () => {
    const state = new HashState(4096, 1000, replyLoop);
    const session = new Session(state, new ByteTokenizer(), 16);
    await session.prefill([1, 2, 3]);
    const controller = new AbortController();
    const got: number[] = [];
    for await (const token of session.generate({ maxTokens: 100, sampling: { temperature: 0 } }, controller.signal)) {
      got.push(token);
      if (got.length === 5) controller.abort();
    }
    assert.equal(got.length, 5);
    assert.equal(session.lastStopReason, "cancelled");
    assert.deepEqual([...session.tokens], [1, 2, 3, ...got]);
    assert.deepEqual(state.cache, [1, 2, 3, ...got], "cache == ledger");
  });

  it("generated tokens follow the cache exactly (ledger == cache)", async () => {
    const state = new HashState(4096, 8, replyLoop);
    const session = new Session(state, new ByteTokenizer(), 4);
    await session.prefill([5, 6, 7, 8, 9]);
    const out: number[] = [];
    for await (const t of session.generate({ maxTokens: 50, sampling: { temperature: 0 } })) out.push(t);
    const expected: number[] = [];
    const seq = [5, 6, 7, 8, 9];
    for (;;) {
      const next = nextToken(seq, 8);
      if (next === 256) break;
      expected.push(next);
      seq.push(next);
    }
    assert.deepEqual(out, expected);
    assert.deepEqual(state.cache, seq);
  });

  it("refuses a write past capacity before calling the engine", async () => {
    const state = new HashState(64, 8, replyLoop);
    const session = new Session(state, new ByteTokenizer(), 16);
    await session.prefill(new Array(60).fill(97));
    const before = state.evaluated;
    await assert.rejects(session.prefill(new Array(5).fill(97)), CapacityError);
    assert.equal(state.evaluated, before);
    assert.equal(session.position, 60);
  });
});

describe(`Conversation on the engine test double${loop}`, () => {
  it("turn 2 prefills only its new tokens", async () => {
    const engine = new FakeEngine(4096, 6, undefined, replyLoop);
    const chat = await Conversation.create(engine, { turn: { systemPrompt: "be brief" } });
    const t1 = await chat.send({ text: "hello" });
    const t2 = await chat.send({ text: "again" });
    assert.equal(t1.cached, 0);
    assert.equal(t2.cached, t1.position);
    assert.equal(t2.prefilled, t2.position - t1.position - t2.replyTokens);
    assert.equal(engine.states[0].evaluated, t2.position, "the backend evaluated each ledger token once");
    await chat.dispose();
  });

  it("empty and oversized messages are typed errors and the conversation stays usable", async () => {
    const engine = new FakeEngine(512, 6, undefined, replyLoop);
    const chat = await Conversation.create(engine, { turn: { maxTokens: 32 } });
    await assert.rejects(chat.send({ text: "   " }), EmptyMessageError);
    await assert.rejects(chat.send({ text: "x".repeat(2000) }), MessageTooLargeError);
    const ok = await chat.send({ text: "still there?" });
    assert.ok(ok.replyTokens > 0);
    await chat.dispose();
  });

  it("summarize-and-reset keeps position under capacity over a long conversation", async () => {
    const engine = new FakeEngine(512, 20, undefined, replyLoop);
    const chat = await Conversation.create(engine, { turn: { maxTokens: 40, systemPrompt: "s" } });
    let overflows = 0;
    for (let i = 0; i < 30; i++) {
      const stats = await chat.send({ text: `message number ${i} with some words` }, { onOverflow: () => overflows++ });
      assert.ok(stats.position <= stats.capacity);
      assert.ok(engine.states[0].length <= 512);
    }
    assert.ok(overflows >= 2, `overflows: ${overflows}`);
    await chat.dispose();
  });

  it("reset while streaming stops the reply and drops queued messages", async () => {
    const engine = new FakeEngine(4096, 1000, undefined, replyLoop);
    const chat = await Conversation.create(engine, { turn: { maxTokens: 500 } });
    let started = false;
    const streaming = chat.send({ text: "long" }, { onText: () => (started = true) });
    const queued = assert.rejects(chat.send({ text: "queued" }), CancelledError);
    while (!started) await new Promise((r) => setImmediate(r));
    await chat.reset();
    assert.equal((await streaming).stopReason, "cancelled");
    await queued;
    assert.equal(chat.position, 0);
    assert.equal(engine.states[0].length, 0);
    await chat.dispose();
  });

  it("reset gives a fresh state: the next turn prefills like a first turn", async () => {
    const engine = new FakeEngine(4096, 6, undefined, replyLoop);
    const chat = await Conversation.create(engine);
    const first = await chat.send({ text: "hello" });
    await chat.send({ text: "more" });
    await chat.reset();
    assert.equal(chat.position, 0);
    const again = await chat.send({ text: "hello" });
    assert.equal(again.prefilled, first.prefilled);
    assert.equal(again.cached, 0);
    assert.equal(again.reply, first.reply);
    await chat.dispose();
  });

  it("a restored conversation re-prefills lazily on its next turn, counted as a restore", async () => {
    const engine = new FakeEngine(4096, 6, undefined, replyLoop);
    const original = await Conversation.create(engine);
    await original.send({ text: "hello" });
    const reply = original.messages.at(-1)!;
    const restored = await Conversation.create(engine);
    await restored.restoreFromMessages([{ role: "user", content: "hello" }, reply]);
    const state = engine.states.at(-1)!;
    assert.equal(state.evaluated, 0, "nothing prefilled until the next turn");
    const next = await restored.send({ text: "again" });
    assert.equal(next.restored, true);
    assert.equal(next.cached, 0);
    assert.equal(next.prefilled, next.position - next.replyTokens, "the whole conversation was re-prefilled once");
    const after = await restored.send({ text: "and again" });
    assert.equal(after.restored, false);
    assert.equal(after.cached, next.position);
    await original.dispose();
    await restored.dispose();
  });

  it("a failed engine call leaves the conversation usable", async () => {
    const engine = new FakeEngine(4096, 6, undefined, replyLoop);
    const chat = await Conversation.create(engine);
    await chat.send({ text: "one" });
    const ledger = [...chat.ledger];
    engine.states[0].beforeEvaluate = () => {
      throw new Error("device lost");
    };
    await assert.rejects(chat.send({ text: "two" }), /device lost/);
    assert.deepEqual([...chat.ledger], ledger);
    engine.states[0].beforeEvaluate = undefined;
    const ok = await chat.send({ text: "two" });
    assert.ok(ok.replyTokens > 0);
    await chat.dispose();
  });
});
}

describe("Session with a backend reply loop that runs ahead of a stop", () => {
  const greedy = { temperature: 0 };

  it("a cancel erases the tokens decoded past it: ledger == cache", async () => {
    const state = new HashState(4096, 1000, true);
    state.runAhead = 3;
    const session = new Session(state, new ByteTokenizer(), 16);
    await session.prefill([1, 2, 3]);
    const controller = new AbortController();
    const got: number[] = [];
    for await (const token of session.generate({ maxTokens: 100, sampling: greedy }, controller.signal)) {
      got.push(token);
      if (got.length === 5) controller.abort();
    }
    assert.equal(got.length, 5);
    assert.equal(session.lastStopReason, "cancelled");
    assert.deepEqual(state.cache, [1, 2, 3, ...got]);
    assert.equal(session.evaluated, session.position);
  });

  it("a consumer that stops reading (a stop string) leaves ledger == cache, and the next reply continues exactly", async () => {
    const runs = await Promise.all(
      [false, true].map(async (replyLoop) => {
        const state = new HashState(4096, 1000, replyLoop);
        state.runAhead = 4;
        const session = new Session(state, new ByteTokenizer(), 16);
        await session.prefill([7, 8, 9]);
        const first: number[] = [];
        for await (const token of session.generate({ maxTokens: 100, sampling: greedy })) {
          first.push(token);
          if (first.length === 6) break;
        }
        const cacheAfterStop = [...state.cache];
        await session.prefill([10]);
        const second: number[] = [];
        for await (const token of session.generate({ maxTokens: 8, sampling: greedy })) second.push(token);
        return { first, second, cacheAfterStop, tokens: [...session.tokens], cache: [...state.cache] };
      }),
    );
    const [steps, loop] = runs;
    assert.deepEqual(loop.first, steps.first);
    assert.ok(loop.cacheAfterStop.length <= 3 + 6, `the loop's extra tokens were erased: ${loop.cacheAfterStop.length}`);
    assert.deepEqual(loop.second, steps.second);
    assert.deepEqual(loop.tokens, steps.tokens);
    assert.deepEqual(loop.cache, loop.tokens, "ledger == cache");
  });

  it("a whole reply: the same tokens, stop reason and prefilled/decoded counts as the step loop", async () => {
    const results = await Promise.all(
      [false, true].map(async (replyLoop) => {
        const state = new HashState(4096, 9, replyLoop);
        const session = new Session(state, new ByteTokenizer(), 4);
        await session.prefill([5, 6, 7, 8, 9, 10, 11]);
        const out: number[] = [];
        for await (const token of session.generate({ maxTokens: 50, sampling: greedy })) out.push(token);
        await session.prefill([12, 13]);
        for await (const token of session.generate({ maxTokens: 3, sampling: greedy })) out.push(token);
        return { out, reason: session.lastStopReason, counters: { ...session.counters }, evaluated: state.evaluated, cache: [...state.cache], tokens: [...session.tokens] };
      }),
    );
    assert.deepEqual(results[1].out, results[0].out);
    assert.equal(results[1].reason, "max_tokens");
    assert.equal(results[1].reason, results[0].reason);
    assert.deepEqual(results[1].counters, results[0].counters);
    assert.equal(results[1].evaluated, results[0].evaluated, "the backend evaluated the same number of tokens");
    assert.deepEqual(results[1].cache, results[1].tokens);
  });

  it("stops at capacity without writing past it", async () => {
    const state = new HashState(32, 1000, true);
    const session = new Session(state, new ByteTokenizer(), 16);
    await session.prefill(new Array(20).fill(97));
    const out: number[] = [];
    for await (const token of session.generate({ maxTokens: 100, sampling: greedy })) out.push(token);
    assert.equal(session.lastStopReason, "capacity");
    assert.equal(session.position, 32);
    assert.equal(out.length, 12);
    assert.ok(state.length <= 32);
    assert.deepEqual(state.cache, [...session.tokens]);
  });
});

describe("Session state reset bookkeeping", () => {
  it("a cache dropped after a failed tail erase is re-prefilled and counted as prefilled, not decoded", async () => {
    const state = new HashState(4096, 1000);
    const session = new Session(state, new ByteTokenizer(), 16);
    await session.prefill([1, 2, 3]);
    let calls = 0;
    state.beforeEvaluate = () => {
      // The evaluation that would put the last generated token into the cache fails.
      if (++calls === 4) throw new Error("engine failed");
    };
    const reply: number[] = [];
    await assert.rejects(async () => {
      for await (const t of session.generate({ maxTokens: 3, sampling: { temperature: 0 } })) reply.push(t);
    });
    assert.equal(reply.length, 3);
    state.beforeEvaluate = undefined;
    state.truncate = async () => {
      throw new Error("cannot erase");
    };
    await session.rollback(2);
    const before = { ...session.counters };
    await session.prefill([9, 9]);
    for await (const _ of session.generate({ maxTokens: 1, sampling: { temperature: 0 } })) void _;
    assert.equal(session.counters.decoded - before.decoded, 1, "only the newly generated token counts as decoded");
    assert.equal(session.counters.prefilled - before.prefilled, session.position - 1, "everything else was prefilled again");
  });
});
