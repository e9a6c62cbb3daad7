// A Stop or an engine failure during an overflow (the summary, or prefilling the seed that
// replaces the conversation) must leave the prompt and the cache in step: either the
// conversation from before the overflow is intact, or the next turn prefills the whole
// seeded prompt (system prompt + summary + ...), never only its tail, never a negative
// `rewound`. Runs on the engine test double, with the core's step loop and with a backend
// reply loop.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import { ChatTemplate, type ChatMessage } from "../../src/extension/core/chat-template";
import { CancelledError } from "../../src/extension/core/errors";
import { SUMMARY_REQUEST } from "../../src/extension/core/overflow";
import { ByteTokenizer, CHATML_TEMPLATE, FakeEngine, type HashState } from "../support/fake-engine";

const tokenizer = new ByteTokenizer();
const template = new ChatTemplate(CHATML_TEMPLATE, { eosToken: tokenizer.eosText });

/** The conversation as a fresh render would prefill it; the ledger ends with the last reply (no end token after it yet). */
function freshRender(messages: readonly ChatMessage[]): string {
  return template.render(messages, { addGenerationPrompt: false });
}

function text(tokens: readonly number[]): string {
  return tokenizer.decode(tokens);
}

/** Sends turns until the next one would overflow and summarize (the fake's capacity is small); returns the chat and its state. */
async function chatNearOverflow(replyLoop: boolean): Promise<{ chat: Conversation; state: HashState; engine: FakeEngine }> {
  const engine = new FakeEngine(1024, 20, undefined, replyLoop);
  const chat = await Conversation.create(engine, { prefillChunk: 8, turn: { maxTokens: 40, systemPrompt: "s" } });
  // Probe on a twin: the turn index at which the first overflow happens.
  const twin = await Conversation.create(new FakeEngine(1024, 20, undefined, replyLoop), { prefillChunk: 8, turn: { maxTokens: 40, systemPrompt: "s" } });
  let first = -1;
  for (let i = 0; first < 0; i++) await twin.send({ text: message(i) }, { onOverflow: () => (first = i) });
  await twin.dispose();
  for (let i = 0; i < first; i++) await chat.send({ text: message(i) });
  return { chat, state: engine.states[0], engine };
}

const message = (i: number) => `message number ${i} with some words`;

/** The next turn after a failed overflow: it runs, follows the cache exactly and starts with the system prompt. */
async function assertNextTurnConsistent(chat: Conversation, state: HashState, label: string): Promise<void> {
  const next = await chat.send({ text: "after the stop" });
  assert.ok(next.rewound >= 0, `${label}: rewound ${next.rewound}`);
  assert.deepEqual(state.cache, [...chat.ledger], `${label}: cache == ledger`);
  assert.ok(text(chat.ledger).startsWith("<|im_start|>system\ns"), `${label}: the ledger starts with the system prompt: ${JSON.stringify(text(chat.ledger).slice(0, 40))}`);
  assert.ok(freshRender(chat.messages).startsWith(text(chat.ledger)), `${label}: the ledger is the conversation's render`);
  assert.ok(next.position <= next.capacity);
}

for (const replyLoop of [false, true]) {
  const loop = replyLoop ? " (backend reply loop)" : "";

  describe(`a failed overflow${loop}`, () => {
    it("Stop while the seed is prefilled: the next turn prefills the whole seed (system prompt + summary), rewound >= 0", async () => {
      const { chat, state } = await chatNearOverflow(replyLoop);
      let overflowed = false;
      let stopped = false;
      state.beforeEvaluate = () => {
        // The first evaluation into an empty cache after the conversation started: the seed.
        if (!stopped && state.cache.length === 0) {
          stopped = true;
          chat.stop();
        }
      };
      await assert.rejects(chat.send({ text: "overflowing" }, { onOverflow: () => (overflowed = true) }), CancelledError);
      assert.ok(stopped, "the stop came during the seed's prefill");
      state.beforeEvaluate = undefined;
      await assertNextTurnConsistent(chat, state, "after Stop");
      assert.match(text(chat.ledger), /Summary of the earlier conversation/);
      assert.ok(overflowed, "the overflow that was kept was reported");
      await chat.dispose();
    });

    it("an engine failure while the seed is prefilled: the conversation stays usable and consistent", async () => {
      const { chat, state } = await chatNearOverflow(replyLoop);
      let failed = false;
      state.beforeEvaluate = () => {
        if (!failed && state.cache.length === 0) {
          failed = true;
          throw new Error("engine process stopped");
        }
      };
      await assert.rejects(chat.send({ text: "overflowing" }), /engine process stopped/);
      assert.ok(failed);
      state.beforeEvaluate = undefined;
      await assertNextTurnConsistent(chat, state, "after a failure");
      await chat.dispose();
    });

    it("Stop while the summary is written: the conversation from before the overflow is intact", async () => {
      const { chat, state } = await chatNearOverflow(replyLoop);
      const ledger = [...chat.ledger];
      const messages = [...chat.messages];
      let stopped = false;
      state.beforeEvaluate = (tokens) => {
        if (!stopped && text([...state.cache, ...tokens]).includes(SUMMARY_REQUEST.slice(0, 20))) {
          stopped = true;
          chat.stop();
        }
      };
      await assert.rejects(chat.send({ text: "overflowing" }, { onOverflow: () => assert.fail("no overflow after a stopped summary") }), CancelledError);
      assert.ok(stopped);
      assert.deepEqual([...chat.ledger], ledger, "the ledger is what it was");
      assert.deepEqual([...chat.messages], messages, "the conversation is what it was");
      assert.deepEqual(state.cache, ledger.slice(0, state.cache.length), "the cache holds a prefix of the ledger (the rest is re-prefilled)");
      state.beforeEvaluate = undefined;
      await assertNextTurnConsistent(chat, state, "after a stopped summary");
      await chat.dispose();
    });
  });
}

describe("turn phases", () => {
  it("a turn reports overflow, prefill and decode in that order; a Stop pressed in a phase ends the turn there with nothing decoded", async () => {
    const { chat } = await chatNearOverflow(true);
    const seen: string[] = [];
    const stats = await chat.send({ text: "the turn that overflows" }, { onPhase: (p) => seen.push(p), onOverflow: () => seen.push("(overflow done)"), onText: () => seen.push("text") });
    assert.ok(stats.overflow, "this turn overflowed");
    assert.deepEqual(seen.filter((s) => s !== "text").slice(0, 4), ["overflow", "(overflow done)", "prefill", "decode"]);
    assert.ok(seen.indexOf("text") > seen.indexOf("decode"), "text only after the decode phase began");

    // Stopped in its prefill, a turn is dropped (CancelledError); stopped as its reply begins, it ends with an empty, cancelled reply.
    const order: string[] = [];
    await assert.rejects(chat.send({ text: "stopped in prefill" }, { onPhase: (p) => (order.push(p), p === "prefill" && chat.stop()), onText: () => order.push("text") }), CancelledError);
    assert.deepEqual(order, ["prefill"]);
    order.length = 0;
    const stopped = await chat.send({ text: "stopped in decode" }, { onPhase: (p) => (order.push(p), p === "decode" && chat.stop()), onText: () => order.push("text") });
    assert.deepEqual(order, ["prefill", "decode"]);
    assert.equal(stopped.stopReason, "cancelled");
    assert.equal(stopped.reply, "");
  });
});
