// The snapshot store's saves against deletes (Reset Conversation, a chat closed for good), on
// real files through an engine test double whose saves can be held at the moment the cache
// is written (a deferred promise): a reset conversation never comes back from disk.

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import type { ChatMessage } from "../../src/extension/core/chat-template";
import { SnapshotStore } from "../../src/extension/snapshots/snapshot-store";
import { SnapshotEngine } from "../support/snapshot-engine";
import { deferred } from "../support/deferred";


describe("SnapshotStore: saves and deletes", () => {
  let dir: string;
  let root: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "snapshot-races-"));
    root = join(dir, "kv-snapshots");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const filesLeft = () => readdirSync(root).sort();

  async function chatWithOneTurn(engine: SnapshotEngine): Promise<{ chat: Conversation; messages: ChatMessage[] }> {
    const chat = await Conversation.create(engine, { turn: { maxTokens: 16 } });
    const stats = await chat.send({ text: "hello" });
    return { chat, messages: [{ role: "user", content: "hello" }, { role: "assistant", content: stats.reply }] };
  }

  /** A save of `chat` held while it writes the cache; `release` lets it go on. */
  async function heldSave(engine: SnapshotEngine, store: SnapshotStore, id: string, chat: Conversation) {
    const writing = deferred();
    const gate = deferred();
    engine.beforeSave = async () => {
      writing.resolve();
      await gate.promise;
    };
    const saving = store.save(id, chat);
    await writing.promise;
    engine.beforeSave = undefined;
    return { saving, release: gate.resolve };
  }

  it("a Reset while a save is being written: the old conversation's snapshot never lands", async () => {
    const engine = new SnapshotEngine(dir);
    const store = new SnapshotStore(root);
    const { chat, messages } = await chatWithOneTurn(engine);
    const { saving, release } = await heldSave(engine, store, "chat-a", chat);
    await store.delete("chat-a"); // Reset Conversation, while the save writes.
    release();
    assert.equal(await saving, undefined, "the save reports it did not land");
    assert.equal(await store.has("chat-a"), false);
    assert.deepEqual(filesLeft(), [], "no cache, description or temporary file");
    const revived = await Conversation.create(engine);
    assert.deepEqual(await store.restore("chat-a", revived, messages), { kind: "none", reason: "no snapshot" }, "a reload finds nothing to bring back");
    await Promise.all([chat.dispose(), revived.dispose()]);
  });

  it("a delete asked for while a save is being published leaves nothing either", async () => {
    const engine = new SnapshotEngine(dir);
    const store = new SnapshotStore(root);
    const { chat } = await chatWithOneTurn(engine);
    const { saving, release } = await heldSave(engine, store, "chat-a", chat);
    release();
    const landed = saving.then((meta) => meta !== undefined);
    const deleting = store.delete("chat-a");
    await Promise.all([landed, deleting]);
    assert.deepEqual(filesLeft(), []);
    await chat.dispose();
  });

  it("a save asked for after a delete lands (the chat goes on after its reset)", async () => {
    const engine = new SnapshotEngine(dir);
    const store = new SnapshotStore(root);
    const { chat } = await chatWithOneTurn(engine);
    await store.delete("chat-a");
    const meta = await store.save("chat-a", chat);
    assert.ok(meta);
    assert.deepEqual(filesLeft(), ["chat-a.json", "chat-a.kv"]);
    await chat.dispose();
  });
});
