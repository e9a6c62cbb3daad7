// Incremental KV snapshots in the snapshot store, on real files through an engine test double
// that writes and appends deltas (the llama.cpp path is test/model/kv-snapshot.test.ts): after
// the first save, a save that extends the conversation writes only the new cells; a rewind,
// a pending save, deltas as large as the cache file or an engine that refuses deltas get a
// whole save; the chain restores exactly; delete and eviction take the deltas with the rest.

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import type { ChatMessage } from "../../src/extension/core/chat-template";
import { EngineCrashedError } from "../../src/extension/core/errors";
import { parseMeta } from "../../src/extension/snapshots/snapshot-meta";
import { SnapshotStore } from "../../src/extension/snapshots/snapshot-store";
import { deferred } from "../support/deferred";
import { SnapshotEngine } from "../support/snapshot-engine";

describe("SnapshotStore: incremental saves (deltas)", () => {
  let dir: string;
  let root: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "snapshot-deltas-"));
    root = join(dir, "kv-snapshots");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const files = () => readdirSync(root).sort();
  const deltaFiles = (id: string) => files().filter((n) => n.startsWith(`${id}.`) && n.endsWith(".kvd"));

  /** A chat of `turns` turns, saved after each; returns it with its transcript and each save's description. */
  async function savedChat(engine: SnapshotEngine, store: SnapshotStore, id: string, turns: number) {
    const chat = await Conversation.create(engine, { turn: { maxTokens: 8 } });
    const messages: ChatMessage[] = [];
    const metas = [];
    for (let i = 0; i < turns; i++) {
      const text = `question ${i}`;
      const stats = await chat.send({ text });
      messages.push({ role: "user", content: text }, { role: "assistant", content: stats.reply });
      metas.push(await store.save(id, chat));
    }
    return { chat, messages, metas };
  }

  it("writes the whole cache once, then only each turn's new cells, and restores the chain exactly", async () => {
    const engine = new SnapshotEngine(dir, 4096, 12, true);
    const store = new SnapshotStore(root);
    const { chat, messages, metas } = await savedChat(engine, store, "chat-a", 3);
    assert.equal(metas[0]?.deltas, undefined, "the first save is whole");
    assert.deepEqual(metas[2]?.deltas?.map((d) => d.file), ["chat-a.1.kvd", "chat-a.2.kvd"]);
    assert.equal(metas[2]?.deltas?.[0].from, metas[0]?.ledger.length, "the first delta starts where the cache file ends");
    assert.deepEqual(files(), ["chat-a.1.kvd", "chat-a.2.kvd", "chat-a.json", "chat-a.kv"]);

    const revived = await Conversation.create(engine, { turn: { maxTokens: 8 } });
    assert.deepEqual(await store.restore("chat-a", revived, messages), { kind: "snapshot", tokens: chat.position });
    const held = engine.states.at(-1)!.cache;
    assert.deepEqual(held, engine.states[0].cache, "the restored cache is the saved chat's, cell for cell");
    // The next save after a restore extends the restored chain.
    await revived.send({ text: "one more" });
    assert.deepEqual((await store.save("chat-a", revived))?.deltas?.map((d) => d.file), ["chat-a.1.kvd", "chat-a.2.kvd", "chat-a.3.kvd"]);
    await Promise.all([chat.dispose(), revived.dispose()]);
  });

  it("a conversation that no longer extends the saved one (a reset, a rewind) is saved whole and the old deltas are removed", async () => {
    const engine = new SnapshotEngine(dir, 4096, 12, true);
    const store = new SnapshotStore(root);
    const { chat } = await savedChat(engine, store, "chat-a", 3);
    assert.equal(deltaFiles("chat-a").length, 2);
    await chat.reset();
    await chat.send({ text: "a new start" });
    const meta = await store.save("chat-a", chat);
    assert.equal(meta?.deltas, undefined, "whole");
    assert.deepEqual(deltaFiles("chat-a"), [], "the earlier deltas went with the conversation they extended");
    await chat.dispose();
  });

  it("rewrites the whole cache once the deltas together reach its size", async () => {
    const engine = new SnapshotEngine(dir, 4096, 12, true);
    const store = new SnapshotStore(root);
    const { chat, metas } = await savedChat(engine, store, "chat-a", 8);
    const whole = metas.map((m, i) => (m?.deltas === undefined ? i : -1)).filter((i) => i >= 0);
    assert.ok(whole.length >= 2 && whole[0] === 0, `whole saves at turns ${whole.join(", ")}`);
    for (const m of metas) {
      const deltaBytes = (m?.deltas ?? []).reduce((sum, d) => sum + d.bytes, 0);
      assert.ok(deltaBytes - (m?.deltas?.at(-1)?.bytes ?? 0) < m!.cacheBytes, "a delta is written only while the ones before it are smaller than the cache file");
    }
    await chat.dispose();
  });

  it("an engine that refuses deltas gets whole saves, and is not asked again", async () => {
    const engine = new SnapshotEngine(dir, 4096, 12, true);
    const store = new SnapshotStore(root);
    const chat = await Conversation.create(engine, { turn: { maxTokens: 8 } });
    engine.states[0].refuseDeltas = true;
    for (let i = 0; i < 3; i++) {
      await chat.send({ text: `question ${i}` });
      assert.equal((await store.save("chat-a", chat))?.deltas, undefined);
    }
    assert.equal(engine.states[0].deltaCalls, 1, "asked once");
    assert.deepEqual(files(), ["chat-a.json", "chat-a.kv"], "no delta or temporary file left");
    await chat.dispose();
  });

  it("an engine crash during a delta save gets that save written whole, and deltas again after it", async () => {
    const engine = new SnapshotEngine(dir, 4096, 12, true);
    const store = new SnapshotStore(root);
    const { chat } = await savedChat(engine, store, "chat-a", 1);
    await chat.send({ text: "second" });
    engine.states[0].failNextDelta = new EngineCrashedError("The engine process stopped (SIGKILL).", true);
    assert.equal((await store.save("chat-a", chat))?.deltas, undefined, "whole, after the delta failed");
    await chat.send({ text: "third" });
    assert.equal((await store.save("chat-a", chat))?.deltas?.length, 1, "a crash is not a refusal: the next save is a delta");
    assert.equal(engine.states[0].deltaCalls, 2);
    await chat.dispose();
  });

  it("a save while another is still waiting to be published is whole (a delta extends only what is on disk)", async () => {
    const engine = new SnapshotEngine(dir, 4096, 12, true);
    const store = new SnapshotStore(root);
    const { chat } = await savedChat(engine, store, "chat-a", 1);
    await chat.send({ text: "second" });
    const writing = deferred();
    const gate = deferred();
    engine.beforeSave = async () => {
      writing.resolve();
      await gate.promise;
    };
    const first = store.save("chat-a", chat); // a delta, held while it writes
    await writing.promise;
    engine.beforeSave = undefined;
    gate.resolve();
    const second = store.save("chat-a", chat);
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a?.deltas?.length, 1);
    assert.ok(b === undefined || b.deltas === undefined || b.deltas.length === 1, "never a delta on top of an unpublished one");
    await chat.dispose();
  });

  it("delete and eviction take the deltas with the cache file", async () => {
    const engine = new SnapshotEngine(dir, 4096, 12, true);
    const store = new SnapshotStore(root);
    const { chat } = await savedChat(engine, store, "chat-a", 3);
    await store.delete("chat-a");
    assert.deepEqual(files(), []);
    const { chat: other } = await savedChat(engine, store, "chat-b", 3);
    const small = new SnapshotStore(root, () => 1);
    const { chat: newest } = await savedChat(engine, small, "chat-c", 1);
    assert.deepEqual(files().filter((n) => n.startsWith("chat-b.")), [], "the older snapshot was evicted with its deltas");
    await Promise.all([chat.dispose(), other.dispose(), newest.dispose()]);
  });

  it("a base removed behind the store's back (another window's budget, a user) gets a whole save, not a delta onto missing files", async () => {
    const engine = new SnapshotEngine(dir, 4096, 12, true);
    const store = new SnapshotStore(root);
    const { chat, messages } = await savedChat(engine, store, "chat-a", 2);
    assert.deepEqual(deltaFiles("chat-a"), ["chat-a.1.kvd"]);
    rmSync(join(root, "chat-a.kv")); // as another window's eviction or a user would
    const stats = await chat.send({ text: "one more" });
    messages.push({ role: "user", content: "one more" }, { role: "assistant", content: stats.reply });
    const meta = await store.save("chat-a", chat);
    assert.equal(meta?.deltas, undefined, "whole, since the cache file the chain extends is gone");
    assert.deepEqual(files(), ["chat-a.json", "chat-a.kv"]);
    const revived = await Conversation.create(engine, { turn: { maxTokens: 8 } });
    assert.deepEqual(await store.restore("chat-a", revived, messages), { kind: "snapshot", tokens: chat.position });
    await Promise.all([chat.dispose(), revived.dispose()]);
  });

  it("a chat's snapshot made by another engine (another context size) is not extended by a delta", async () => {
    const store = new SnapshotStore(root);
    const first = new SnapshotEngine(dir, 4096, 12, true);
    const { chat } = await savedChat(first, store, "chat-a", 1);
    // The same conversation, now on an engine of another context size: its cells are not the base's.
    const other = new SnapshotEngine(dir, 2048, 12, true);
    const moved = await Conversation.create(other, { turn: { maxTokens: 8 } });
    await moved.send({ text: "question 0" });
    await moved.send({ text: "question 1" });
    const meta = await store.save("chat-a", moved);
    assert.equal(meta?.contextSize, 2048);
    assert.equal(meta?.deltas, undefined, "whole: a delta would put this engine's cells on the other's");
    await Promise.all([chat.dispose(), moved.dispose()]);
  });

  it("a description whose delta chain has a gap, or does not end at the ledger's end, is refused", async () => {
    const engine = new SnapshotEngine(dir, 4096, 12, true);
    const store = new SnapshotStore(root);
    const { chat } = await savedChat(engine, store, "chat-a", 3);
    const raw = JSON.parse(readFileSync(join(root, "chat-a.json"), "utf8"));
    assert.ok(parseMeta(raw), "the saved description parses");
    assert.equal(parseMeta({ ...raw, deltas: [raw.deltas[0], { ...raw.deltas[1], from: raw.deltas[1].from + 1 }] }), undefined, "a gap");
    assert.equal(parseMeta({ ...raw, deltas: [raw.deltas[0]] }), undefined, "ends before the ledger");
    assert.equal(parseMeta({ ...raw, deltas: raw.deltas.map((d: { file: string }) => ({ ...d, file: `other.${d.file}` })) }), undefined, "another chat's file");
    writeFileSync(join(root, "chat-a.json"), JSON.stringify({ ...raw, deltas: [raw.deltas[0]] }));
    const revived = await Conversation.create(engine);
    assert.deepEqual(await store.restore("chat-a", revived, []), { kind: "none", reason: "unreadable snapshot description" });
    await Promise.all([chat.dispose(), revived.dispose()]);
  });
});
