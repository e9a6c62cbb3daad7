// Invariant 6 on the real model: stop ends generation within one token and prefill within
// one chunk; the ledger then holds exactly what was computed.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { LlamaEngine } from "../../src/extension/backends/llamacpp/llama-engine";
import { Conversation } from "../../src/extension/core/conversation";
import { CancelledError } from "../../src/extension/core/errors";
import { defaultModelFile } from "../support/default-model";
import { InstrumentedEngine } from "../support/instrumented-engine";
import { testThreads } from "../support/test-threads";

describe("cancel on the default model", () => {
  let engine: InstrumentedEngine;
  before(async () => {
    engine = new InstrumentedEngine(await LlamaEngine.load({ modelPath: defaultModelFile(), contextSize: 2048, threads: testThreads() }));
  });
  after(async () => {
    await engine?.dispose();
  });

  it("stop during generation ends within one token; the transcript shows exactly the cached reply", async () => {
    const chat = await Conversation.create(engine, { turn: { maxTokens: 200 } });
    let streamed = "";
    let pieces = 0;
    const stats = await chat.send(
      { text: "Write a long story about a dragon who learns to program." },
      {
        onText: (text) => {
          streamed += text;
          if (++pieces === 3) chat.stop();
        },
      },
    );
    assert.equal(stats.stopReason, "cancelled");
    assert.ok(stats.replyTokens >= 3 && stats.replyTokens <= 4, `reply tokens after stop: ${stats.replyTokens}`);
    assert.equal(stats.reply, streamed, "what the user saw is what the model computed");
    const state = engine.states.at(-1)!;
    assert.equal(state.inner.length, chat.ledger.length, "every reply token is in the cache");
    const next = await chat.send({ text: "Thanks." });
    assert.equal(next.cached, stats.position, "the stopped turn stays in the conversation");
    await chat.dispose();
  });

  it("stop during prefill ends within one chunk and rolls the message back", async () => {
    const chat = await Conversation.create(engine, { turn: { maxTokens: 16 }, prefillChunk: 64 });
    const first = await chat.send({ text: "Hello" });
    const state = engine.states.at(-1)!;
    const callsBefore = state.calls.length;
    const long = "Please review this code:\n" + "let x = compute(a, b) + other(c);\n".repeat(60);
    const pending = chat.send({ text: long }, { onStart: () => setImmediate(() => chat.stop()) });
    await assert.rejects(pending, CancelledError);
    const evaluateCalls = state.calls.slice(callsBefore).filter((c) => c.kind === "evaluate");
    assert.ok(evaluateCalls.length <= 2, `chunks evaluated after stop: ${evaluateCalls.length}`);
    assert.equal(chat.position, first.position, "ledger back to where the turn started");
    assert.equal(state.inner.length, first.position, "cache back to where the turn started");
    const again = await chat.send({ text: "Still there?" });
    assert.equal(again.cached, first.position);
    await chat.dispose();
  });
});
