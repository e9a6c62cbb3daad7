// KV snapshots on the default model, through the engine process: a 10-turn chat saved after
// each turn, "reloaded" into a new engine process, continues from the snapshot (the first
// new turn prefills only its new tokens, cached == restored position) with the same reply
// as the chat that was never reloaded (greedy). Snapshots of another model, another context
// size or another conversation are refused and deleted; a truncated file is refused.

import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import type { ChatMessage } from "../../src/extension/core/chat-template";
import type { TurnStats } from "../../src/extension/core/stats";
import type { ProxyEngine } from "../../src/extension/engine-host/proxy-engine";
import type { SnapshotMeta } from "../../src/extension/snapshots/snapshot-meta";
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
  /** Per save: the bytes it wrote (a delta's, or the whole cache file's), whether it was a delta, and what a whole save would have written. */
  const writes: { bytes: number; delta: boolean; wholeBytes: number }[] = [];
  let finalMeta: SnapshotMeta | undefined;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "kv-snapshots-"));
    store = new SnapshotStore(root);
    const engine = await load(2048);
    const chat = await Conversation.create(engine, { turn: TURN });
    for (const text of QUESTIONS) {
      const stats = await chat.send({ text });
      messages.push({ role: "user", content: text }, { role: "assistant", content: stats.reply });
      const meta = await store.save("chat-a", chat);
      assert.ok(meta, "a snapshot was written");
      assert.equal(meta.ledger.length, chat.position);
      const deltas = meta.deltas ?? [];
      const delta = deltas.length > (finalMeta?.deltas?.length ?? 0);
      // A whole save now: the cache file's bytes per token at this length (the file is its cells plus a small header).
      const wholeBytes = delta ? Math.round((meta.cacheBytes / deltas[0].from) * meta.ledger.length) : meta.cacheBytes;
      writes.push({ bytes: delta ? deltas.at(-1)!.bytes : meta.cacheBytes, delta, wholeBytes });
      finalMeta = meta;
    }
    savedPosition = chat.position;
    expected = await chat.send({ text: NEXT }); // The chat that is never reloaded.
    await chat.dispose();
    await engine.dispose();
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  /** A copy of the saved snapshot (cache file, deltas and description) under another id, to spoil in one way. */
  function copyAs(id: string): { meta: string; cache: string; deltas: string[] } {
    cpSync(join(root, "chat-a.kv"), join(root, `${id}.kv`));
    const described = JSON.parse(readFileSync(join(root, "chat-a.json"), "utf8")) as { id: string; deltas?: { file: string }[] };
    described.id = id;
    const deltas: string[] = [];
    for (const delta of described.deltas ?? []) {
      const file = delta.file.replace(/^chat-a\./, `${id}.`);
      cpSync(join(root, delta.file), join(root, file));
      delta.file = file;
      deltas.push(join(root, file));
    }
    const meta = join(root, `${id}.json`);
    writeFileSync(meta, JSON.stringify(described));
    return { meta, cache: join(root, `${id}.kv`), deltas };
  }

  it("after the first save, a save writes only the turn's new cells, and the whole cache again once the deltas reach its size", () => {
    assert.equal(writes[0].delta, false, "the first save is whole");
    const deltas = writes.filter((w) => w.delta);
    assert.ok(deltas.length >= writes.length / 2, `${deltas.length} of ${writes.length} saves were deltas`);
    for (const w of deltas) assert.ok(w.bytes < w.wholeBytes / 2, `a delta of ${w.bytes} bytes against ${w.wholeBytes} for the whole cache`);
    const written = writes.reduce((sum, w) => sum + w.bytes, 0);
    const wholeEveryTurn = writes.reduce((sum, w) => sum + w.wholeBytes, 0);
    assert.ok(written < wholeEveryTurn / 2, `${written} bytes written over ${writes.length} saves, against ${wholeEveryTurn} whole`);
    assert.ok((finalMeta?.deltas?.length ?? 0) > 0, "the snapshot the next tests restore has deltas");
    assert.equal(readdirSync(root).filter((n) => /^chat-a\.\d+\.kvd$/.test(n)).length, finalMeta!.deltas!.length, "a whole save removed the deltas before it");
  });

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
      const chat = await Conversation.create(engine, { turn: TURN });
      const outcome = await store.restore("chat-a", chat, messages);
      assert.deepEqual(outcome, { kind: "snapshot", tokens: savedPosition });
      // The cache file and its deltas together: the engine's own count is the ledger.
      const check = await chat.probeCache();
      assert.equal(check.probe?.held, savedPosition);
      assert.equal(check.mismatch, undefined);
      const stats = await chat.send({ text: NEXT });
      assert.equal(stats.cached, savedPosition, "cached == the restored position");
      assert.deepEqual(stats.resumed, { from: "snapshot", tokens: savedPosition });
      assert.equal(stats.prefilled, expected.prefilled, "prefilled only the new turn, as the never-reloaded chat did");
      assert.equal(stats.reply, expected.reply);
      await chat.dispose();
      for (const file of [spoiled.meta, spoiled.cache, ...spoiled.deltas]) rmSync(file);
    });

    it("refuses and deletes a snapshot of another model file", async () => {
      const files = copyAs("other-model");
      const meta = JSON.parse(readFileSync(files.meta, "utf8"));
      meta.model.headerSha256 = "0".repeat(64);
      writeFileSync(files.meta, JSON.stringify(meta));
      const chat = await Conversation.create(engine, { turn: TURN });
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
      const chat = await Conversation.create(engine, { turn: TURN });
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
      const chat = await Conversation.create(engine, { turn: TURN });
      assert.deepEqual(await store.restore("tampered", chat, messages), { kind: "none", reason: "unreadable snapshot description" });
      assert.ok(!existsSync(files.meta) && !existsSync(files.cache));
      await chat.dispose();
    });

    it("refuses a truncated cache file, and one whose description was made to match it", async () => {
      const files = copyAs("truncated");
      truncateSync(files.cache, Math.floor(statSync(files.cache).size / 2));
      const chat = await Conversation.create(engine, { turn: TURN });
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
      const reference = await Conversation.create(engine, { turn: TURN });
      await reference.restoreFromSnapshot(JSON.parse(readFileSync(join(root, "chat-a.json"), "utf8")).conversation);
      assert.equal(stats.reply, (await reference.send({ text: NEXT })).reply);
      await reference.dispose();
    });

    /** A snapshot whose files pass the store's checks but not the engine's: the conversation is kept and re-prefilled, the files deleted. Disposes `chat`. */
    async function refusedByTheEngine(id: string, chat: Conversation, files: { cache: string; deltas: readonly string[] }) {
      assert.equal((await store.restore(id, chat, messages)).kind, "conversation");
      assert.ok(!existsSync(files.cache) && files.deltas.every((d) => !existsSync(d)), "its files deleted");
      const stats = await chat.send({ text: NEXT });
      assert.equal(stats.cached, 0, "nothing of the refused chain is used");
      assert.equal(stats.reply, expected.reply, "re-prefilled, the same reply");
      await chat.dispose();
    }

    it("refuses a truncated delta, and one whose description was made to match it (the engine refuses it; re-prefilled)", async () => {
      const files = copyAs("delta-cut");
      const last = files.deltas.at(-1)!;
      truncateSync(last, Math.floor(statSync(last).size / 2));
      const chat = await Conversation.create(engine, { turn: TURN });
      const outcome = await store.restore("delta-cut", chat, messages);
      assert.equal(outcome.kind, "none");
      assert.match(outcome.kind === "none" ? outcome.reason : "", /^delta \S+ is \d+ bytes, expected \d+ \(truncated\)$/);
      assert.ok(!existsSync(files.meta) && !existsSync(files.cache) && files.deltas.every((d) => !existsSync(d)), "all its files deleted");

      const lying = copyAs("delta-cut-2");
      const cut = lying.deltas.at(-1)!;
      truncateSync(cut, Math.floor(statSync(cut).size / 2));
      const meta = JSON.parse(readFileSync(lying.meta, "utf8"));
      meta.deltas.at(-1).bytes = statSync(cut).size;
      writeFileSync(lying.meta, JSON.stringify(meta));
      await refusedByTheEngine("delta-cut-2", chat, lying);
    });

    it("refuses a delta whose cells repeat a position, its size and tokens intact (the engine refuses it; re-prefilled)", async () => {
      const files = copyAs("delta-dup");
      const last = files.deltas.at(-1)!;
      const bytes = readFileSync(last);
      // The addon's delta file: magic, version, from, token count, the tokens, the state's size;
      // then llama.cpp's sequence state: its magic and sequence id, the stream count, the cell
      // count, and each cell's position first.
      const from = bytes.readInt32LE(8);
      const tokenCount = bytes.readUInt32LE(12);
      const firstCell = 16 + 4 * tokenCount + 8 + 8 + 8;
      assert.ok(tokenCount >= 2, "a delta of at least two cells");
      assert.equal(bytes.readUInt32LE(firstCell - 4), tokenCount, "one cell per token");
      assert.equal(bytes.readInt32LE(firstCell), from, "the first cell holds the delta's first position");
      bytes.writeInt32LE(from + 1, firstCell); // two cells at from + 1, none at from: the last position is still right
      writeFileSync(last, bytes);
      await refusedByTheEngine("delta-dup", await Conversation.create(engine, { turn: TURN }), files);
    });
  });

  it("refuses and deletes a snapshot made for another context size", async () => {
    const files = copyAs("other-context");
    const engine = await load(1024);
    try {
      const chat = await Conversation.create(engine, { turn: TURN });
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
    const bytes = readdirSync(root).filter((n) => n.startsWith("chat-a.")).reduce((sum, n) => sum + statSync(join(root, n)).size, 0);
    const engine = await load(2048);
    try {
      const small = new SnapshotStore(root, () => Math.floor(bytes * 1.5));
      const chat = await Conversation.create(engine, { turn: TURN });
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
