// KV snapshots on the default model, through the engine process: a 10-turn chat saved after
// each turn, "reloaded" into a new engine process, continues from the snapshot (the first
// new turn prefills only its new tokens, cached == restored position) with the same reply
// as the chat that was never reloaded (greedy). Snapshots of another model, another context
// size or another conversation are refused and deleted; a truncated file is refused.

import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ChatSession } from "../../src/extension/core/chat-session";
import type { ChatMessage } from "../../src/extension/core/chat-template";
import type { TurnStats } from "../../src/extension/core/stats";
import type { ProxyEngine } from "../../src/extension/engine-host/proxy-engine";
import { SnapshotStore } from "../../src/extension/snapshots/snapshot-store";
import { defaultModelFile } from "../support/default-model";
import { startProxyEngine } from "../support/engine-process";
import { testThreads } from "../support/test-threads";

const QUESTIONS = [
  "My name is Ada.",
  "What is 2 + 2?",
  "Name a fruit.",
  "Say hello in French.",
  "What colour is the sky?",
  "Name a planet.",
  "What is a CPU?",
  "Say yes.",
  "Name a prime number.",
  "What is Python?",
];
const NEXT = "What is my name?";
const TURN = { maxTokens: 24 };
const load = (contextSize: number) => startProxyEngine({ modelPath: defaultModelFile(), backend: "llamacpp", contextSize, threads: testThreads() });

describe("KV snapshots (default model, engine process)", () => {
  let root: string;
  let store: SnapshotStore;
  const messages: ChatMessage[] = [];
  let expected: TurnStats;
  let savedPosition = 0;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "kv-snapshots-"));
    store = new SnapshotStore(root);
    const engine = await load(2048);
    const chat = await ChatSession.create(engine, { turn: TURN });
    for (const text of QUESTIONS) {
      const stats = await chat.send({ text });
      messages.push({ role: "user", content: text }, { role: "assistant", content: stats.reply });
      const meta = await store.save("chat-a", chat);
      assert.ok(meta, "a snapshot was written");
      assert.equal(meta.ledger.length, chat.position);
    }
    savedPosition = chat.position;
    expected = await chat.send({ text: NEXT }); // The chat that is never reloaded.
    await chat.dispose();
    await engine.dispose();
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  /** A copy of the saved snapshot under another id, to spoil in one way. */
  function copyAs(id: string): { meta: string; cache: string } {
    cpSync(join(root, "chat-a.json"), join(root, `${id}.json`));
    cpSync(join(root, "chat-a.kv"), join(root, `${id}.kv`));
    const meta = join(root, `${id}.json`);
    writeFileSync(meta, readFileSync(meta, "utf8").replace('"id":"chat-a"', `"id":"${id}"`));
    return { meta, cache: join(root, `${id}.kv`) };
  }

  describe("in a new engine process with the same settings", () => {
    let engine: ProxyEngine;
    before(async () => {
      engine = await load(2048);
    });
    after(async () => {
      await engine?.dispose();
    });

    it("resumes from the snapshot: only the new turn is prefilled, and the reply is the never-reloaded one", async () => {
      const spoiled = copyAs("chat-b");
      const chat = await ChatSession.create(engine, { turn: TURN });
      const outcome = await store.restore("chat-a", chat, messages);
      assert.deepEqual(outcome, { kind: "snapshot", tokens: savedPosition });
      const stats = await chat.send({ text: NEXT });
      assert.equal(stats.cached, savedPosition, "cached == the restored position");
      assert.deepEqual(stats.resumed, { from: "snapshot", tokens: savedPosition });
      assert.equal(stats.prefilled, expected.prefilled, "prefilled only the new turn, as the never-reloaded chat did");
      assert.equal(stats.reply, expected.reply);
      await chat.dispose();
      rmSync(spoiled.meta);
      rmSync(spoiled.cache);
    });

    it("refuses and deletes a snapshot of another model file", async () => {
      const files = copyAs("other-model");
      const meta = JSON.parse(readFileSync(files.meta, "utf8"));
      meta.model.headerSha256 = "0".repeat(64);
      writeFileSync(files.meta, JSON.stringify(meta));
      const chat = await ChatSession.create(engine, { turn: TURN });
      const outcome = await store.restore("other-model", chat, messages);
      assert.equal(outcome.kind, "none");
      // The refusal names what differed (here the header's hash), so a surprise explains itself.
      assert.match("reason" in outcome ? String(outcome.reason) : "", /^made with another model file \(header sha256 000000000000… → [0-9a-f]{12}…; same path /);
      assert.ok(!existsSync(files.meta) && !existsSync(files.cache), "deleted");
      const stats = await chat.send({ text: "Hi" });
      assert.equal(stats.cached, 0);
      await chat.dispose();
    });

    it("refuses and deletes a snapshot whose conversation differs from the transcript", async () => {
      const files = copyAs("other-ledger");
      const chat = await ChatSession.create(engine, { turn: TURN });
      const changed = messages.map((m, i) => (i === 3 ? { ...m, content: `${m.content} (edited)` } : m));
      assert.deepEqual(await store.restore("other-ledger", chat, changed), { kind: "none", reason: "the transcript's conversation differs" });
      assert.ok(!existsSync(files.meta) && !existsSync(files.cache));
      await chat.dispose();
    });

    it("refuses a meta file whose ledger was tampered with", async () => {
      const files = copyAs("tampered");
      const meta = JSON.parse(readFileSync(files.meta, "utf8"));
      meta.conversation.prompt.segments[1].tokens[0] += 1;
      writeFileSync(files.meta, JSON.stringify(meta));
      const chat = await ChatSession.create(engine, { turn: TURN });
      assert.deepEqual(await store.restore("tampered", chat, messages), { kind: "none", reason: "unreadable snapshot description" });
      assert.ok(!existsSync(files.meta) && !existsSync(files.cache));
      await chat.dispose();
    });

    it("refuses a truncated cache file, and one whose description was made to match it", async () => {
      const files = copyAs("truncated");
      truncateSync(files.cache, Math.floor(statSync(files.cache).size / 2));
      const chat = await ChatSession.create(engine, { turn: TURN });
      const outcome = await store.restore("truncated", chat, messages);
      assert.equal(outcome.kind, "none");
      assert.match(outcome.kind === "none" ? outcome.reason : "", /truncated/);
      assert.ok(!existsSync(files.meta) && !existsSync(files.cache));

      // The size check fooled: the engine itself refuses the file; the conversation is re-prefilled.
      const lying = copyAs("truncated-2");
      truncateSync(lying.cache, Math.floor(statSync(lying.cache).size / 2));
      const meta = JSON.parse(readFileSync(lying.meta, "utf8"));
      meta.cacheBytes = statSync(lying.cache).size;
      writeFileSync(lying.meta, JSON.stringify(meta));
      const outcome2 = await store.restore("truncated-2", chat, messages);
      assert.equal(outcome2.kind, "conversation");
      assert.ok(!existsSync(lying.meta) && !existsSync(lying.cache));
      const stats = await chat.send({ text: NEXT });
      assert.equal(stats.cached, 0);
      assert.deepEqual(stats.resumed, { from: "reprefill", tokens: savedPosition });
      await chat.dispose();

      // The refused file left nothing behind: the same as resuming the conversation without any cache.
      const reference = await ChatSession.create(engine, { turn: TURN });
      await reference.resume(JSON.parse(readFileSync(join(root, "chat-a.json"), "utf8")).conversation);
      assert.equal(stats.reply, (await reference.send({ text: NEXT })).reply);
      await reference.dispose();
    });
  });

  it("refuses and deletes a snapshot made for another context size", async () => {
    const files = copyAs("other-context");
    const engine = await load(1024);
    try {
      const chat = await ChatSession.create(engine, { turn: TURN });
      assert.deepEqual(await store.restore("other-context", chat, messages), { kind: "none", reason: "made for context size 2048, not 1024" });
      assert.ok(!existsSync(files.meta) && !existsSync(files.cache));
      await chat.dispose();
    } finally {
      await engine.dispose();
    }
  });

  it("a disk budget evicts the oldest snapshots; delete removes one", async () => {
    copyAs("old-1");
    copyAs("old-2");
    const bytes = statSync(join(root, "chat-a.kv")).size + statSync(join(root, "chat-a.json")).size;
    const engine = await load(2048);
    try {
      const small = new SnapshotStore(root, () => Math.floor(bytes * 1.5));
      const chat = await ChatSession.create(engine, { turn: TURN });
      await chat.send({ text: "Hi" });
      assert.ok(await small.save("newest", chat));
      assert.ok(existsSync(join(root, "newest.kv")), "the snapshot just saved stays");
      const left = ["chat-a", "old-1", "old-2"].filter((id) => existsSync(join(root, `${id}.json`)));
      assert.deepEqual(left, ["old-2"], "the oldest went first, down to the budget");
      await small.delete("newest");
      assert.ok(!existsSync(join(root, "newest.kv")) && !existsSync(join(root, "newest.json")));
      await chat.dispose();
    } finally {
      await engine.dispose();
    }
  });
});
