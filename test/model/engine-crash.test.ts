// The engine in its own process: SIGKILL it mid-reply and nothing is lost. The turn fails
// with engine_crashed, the ledger is what it was before the turn, the process restarts and
// the next turn re-prefills the conversation into a fresh state: its reply equals the reply
// of a chat that never crashed (greedy), and ledger == cache afterwards. A crash loop stops.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import { EngineCrashedError, StatefulChatError } from "../../src/extension/core/errors";
import type { ProxyEngine } from "../../src/extension/engine-host/proxy-engine";
import { defaultModelFile } from "../support/default-model";
import { startProxyEngine } from "../support/engine-process";
import { greedyFromFresh, greedyFromState, InstrumentedEngine } from "../support/instrumented-engine";
import { testThreads } from "../support/test-threads";

const FACT = "My name is Ada and my favourite number is 42.";
const LONG = "Write a long poem about the sea, with many verses.";
const QUESTION = "What is my favourite number?";
const TURN = { maxTokens: 48 };

function killOnFirstText(engine: ProxyEngine, seen: { text: string; killed?: number }) {
  return (text: string) => {
    seen.text += text;
    if (seen.killed === undefined && engine.pid !== undefined) {
      seen.killed = engine.pid;
      process.kill(engine.pid, "SIGKILL");
    }
  };
}

describe("engine process crash recovery (default model)", () => {
  let proxy: ProxyEngine;
  let engine: InstrumentedEngine;
  before(async () => {
    proxy = await startProxyEngine({ modelPath: defaultModelFile(), backend: "llamacpp", contextSize: 1024, threads: testThreads() });
    engine = new InstrumentedEngine(proxy);
  });
  after(async () => {
    await engine?.dispose();
  });

  it("SIGKILL mid-reply: engine_crashed, ledger intact, next turn re-prefills and continues exactly", async () => {
    const reference = await Conversation.create(engine, { turn: TURN });
    await reference.send({ text: FACT });
    const expected = await reference.send({ text: QUESTION });
    await reference.dispose();

    const chat = await Conversation.create(engine, { turn: TURN });
    await chat.send({ text: FACT });
    const ledgerBefore = [...chat.ledger];
    const firstPid = proxy.pid;
    const seen: { text: string; killed?: number } = { text: "" };
    await assert.rejects(chat.send({ text: LONG }, { onText: killOnFirstText(proxy, seen) }), (error: unknown) => {
      assert.ok(error instanceof EngineCrashedError, String(error));
      assert.equal(error.code, "engine_crashed");
      assert.match(error.message, /SIGKILL/);
      assert.equal(error.restarting, true);
      return true;
    });
    assert.equal(seen.killed, firstPid);
    assert.ok(seen.text.length > 0, "part of the reply streamed before the kill");
    assert.deepEqual([...chat.ledger], ledgerBefore, "the failed turn left the ledger as before it");

    const answer = await chat.send({ text: QUESTION });
    assert.notEqual(proxy.pid, firstPid, "a new engine process");
    assert.equal(proxy.crashes, 1);
    assert.equal(answer.cached, 0, "nothing cached in the fresh process");
    assert.deepEqual(answer.resumed, { from: "reprefill", tokens: ledgerBefore.length }, "the status line says re-prefilled N tokens");
    assert.equal(answer.prefilled, expected.prefilled + expected.cached, "the whole conversation was re-prefilled");
    assert.equal(answer.reply, expected.reply, "same reply as the chat that never crashed (greedy)");

    const state = engine.states.at(-1)!.inner;
    const ledger = [...chat.ledger];
    assert.equal(state.length, ledger.length);
    assert.deepEqual(await greedyFromState(state, ledger, 3), await greedyFromFresh(engine, ledger, 3), "ledger == cache");
    await chat.dispose();
  });
});

describe("engine process crash loop", () => {
  it("stops restarting after repeated crashes within a minute and says why", async () => {
    const proxy = await startProxyEngine(
      { modelPath: defaultModelFile(), backend: "llamacpp", contextSize: 512, threads: 1 },
      { guard: { maxCrashes: 3, baseDelayMs: 50 } },
    );
    try {
      const chat = await Conversation.create(proxy, { turn: { maxTokens: 16 } });
      const errors: StatefulChatError[] = [];
      for (let i = 0; i < 10; i++) {
        const seen = { text: "" } as { text: string; killed?: number };
        await chat.send({ text: "Count from one to twenty." }, { onText: killOnFirstText(proxy, seen) }).then(
          () => assert.fail("the turn survived a kill"),
          (error: unknown) => errors.push(error as StatefulChatError),
        );
      }
      assert.ok(errors.every((e) => e.code === "engine_crashed"), errors.map(String).join("\n"));
      assert.equal(proxy.crashes, 3, "no restart after the third crash");
      const last = errors.at(-1) as EngineCrashedError;
      assert.equal(last.restarting, false);
      assert.match(last.message, /crashed 3 times within 60 s, so it is not restarted again/);
      assert.equal(proxy.pid, undefined);
      await chat.dispose();
    } finally {
      await proxy.dispose();
    }
  });
});
