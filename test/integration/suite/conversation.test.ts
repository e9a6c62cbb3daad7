// Real-model conversations through the panels' sessions (the default SmolLM2 GGUF on
// llama.cpp): answers, cache reuse across turns, Reset Conversation, independent panels and
// sends queued behind a streaming reply.

import * as assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "mocha";
import * as vscode from "vscode";
import type { TestingPanel } from "../../../src/extension/shell/testing/testing-api";
import { assertEngineHoldsLedger } from "./engine-cache";
import { closeAllPanels, newChat, turn, waitFor } from "./helpers";

const QUESTION = "What does a KV cache store?";

function roles(panel: TestingPanel): string[] {
  return panel.transcript.map((e) => `${e.role}:${e.status}`);
}

describe("conversation with the default model", () => {
  /** Prefill of QUESTION as the first turn of a brand-new conversation (system prompt + message). */
  let freshPrefill = 0;

  before(async () => {
    await closeAllPanels();
    const reference = await newChat();
    const stats = await turn(reference, QUESTION);
    freshPrefill = stats.prefilled;
    await closeAllPanels();
  });
  afterEach(closeAllPanels);
  after(closeAllPanels);

  it("answers a message and shows the reply in the transcript", async () => {
    const panel = await newChat();
    const stats = await turn(panel, QUESTION);
    assert.ok(stats.reply.trim().length > 0, "empty reply");
    assert.equal(stats.cached, 0);
    assert.equal(stats.prefilled, freshPrefill, "greedy, same prompt: same prefill as the reference");
    assert.ok(panel.position > stats.prefilled, "the cache holds prompt and reply");
    assert.deepEqual(roles(panel), ["user:complete", "assistant:complete"]);
    assert.equal(panel.transcript[1]!.text.trim().length > 0, true);
    await assertEngineHoldsLedger(panel);
  });

  it("prefills only the new tokens on the next turn", async () => {
    const panel = await newChat();
    await turn(panel, QUESTION);
    const positionAfterFirst = panel.position;
    const second = await turn(panel, "Give one example.");
    // Everything the first turn left in the cache is reused; only the new turn is prefilled.
    assert.equal(second.cached, positionAfterFirst);
    assert.equal(second.position, second.cached + second.prefilled + second.replyTokens);
    await assertEngineHoldsLedger(panel);
  });

  it("Reset Conversation (command) leaves the next turn prefilling only system prompt + message", async () => {
    const panel = await newChat();
    await turn(panel, "Hello!");
    await turn(panel, "Tell me about caches.");
    assert.ok(panel.position > 0);
    await vscode.commands.executeCommand("statefulChat.resetConversation");
    await waitFor("the transcript to clear", () => panel.transcript.length === 0);
    const next = await turn(panel, QUESTION);
    assert.equal(next.cached, 0);
    assert.equal(next.prefilled, freshPrefill);
    assert.deepEqual(roles(panel), ["user:complete", "assistant:complete"]);
    await assertEngineHoldsLedger(panel);
  });

  it("keeps two panels' conversations independent", async () => {
    const a = await newChat();
    await turn(a, "My favourite colour is green.");
    const aPosition = a.position;
    const aEntries = a.transcript.length;
    const b = await newChat();
    const bFirst = await turn(b, QUESTION);
    assert.equal(bFirst.cached, 0, "panel B started from panel A's state");
    assert.equal(bFirst.prefilled, freshPrefill);
    assert.equal(a.position, aPosition, "panel B's turn moved panel A's ledger");
    await assertEngineHoldsLedger(a);
    await assertEngineHoldsLedger(b);
    assert.equal(a.transcript.length, aEntries);
    assert.ok(!b.transcript.some((e) => e.text.includes("green")));
    const aSecond = await turn(a, "What is my favourite colour?");
    assert.equal(aSecond.cached, aPosition, "panel A's cache changed under it");
  });

  it("queues a send made while a reply is streaming; both complete in order", async () => {
    const panel = await newChat();
    const first = panel.send("Write a long story about a compiler that learns to cache.");
    const second = panel.send("Now say it in one line.");
    assert.equal(panel.busy, true);
    const [s1, s2] = await Promise.all([first, second]);
    assert.ok(s1 && s2, "a queued send was refused");
    assert.equal(s2.turn, s1.turn + 1);
    assert.equal(s2.cached, s1.position, "the queued turn did not continue from the first one's state");
    await waitFor("the panel to go idle", () => !panel.busy);
    const users = panel.transcript.filter((e) => e.role === "user").map((e) => e.text);
    assert.deepEqual(users, ["Write a long story about a compiler that learns to cache.", "Now say it in one line."]);
    assert.equal(panel.transcript.filter((e) => e.role === "assistant" && e.status === "complete").length, 2);
    await assertEngineHoldsLedger(panel);
  });
});
