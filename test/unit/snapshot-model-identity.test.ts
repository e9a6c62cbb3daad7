// Which model file a KV snapshot was made with, as the snapshot store judges it on restore.
// The identity of an unchanged file is the same whatever path reaches it (a symlink such as an
// Ollama blob, a relative path), so a refusal means the file at the path changed or another
// copy is loaded; the refusal says which field changed and which paths were involved, so an
// unexpected re-prefill (issue 29: a view moved to the secondary side bar) explains itself.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import type { ChatMessage } from "../../src/extension/core/chat-template";
import { modelDifferences, modelIdentity } from "../../src/extension/snapshots/model-identity";
import { SnapshotStore } from "../../src/extension/snapshots/snapshot-store";
import { SnapshotEngine } from "../support/snapshot-engine";

describe("KV snapshots and the model file they were made with", () => {
  let dir: string;
  let root: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "snapshot-model-"));
    root = join(dir, "kv-snapshots");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A chat with one turn, saved; what a revived chat needs to restore it. */
  async function savedChat(engine: SnapshotEngine, store: SnapshotStore): Promise<ChatMessage[]> {
    const chat = await Conversation.create(engine, { turn: { maxTokens: 16 } });
    const stats = await chat.send({ text: "hello" });
    assert.ok(await store.save("chat-a", chat), "the snapshot was saved");
    await chat.dispose();
    return [{ role: "user", content: "hello" }, { role: "assistant", content: stats.reply }];
  }

  async function restore(engine: SnapshotEngine, store: SnapshotStore, messages: ChatMessage[]) {
    const revived = await Conversation.create(engine);
    try {
      return await store.restore("chat-a", revived, messages);
    } finally {
      await revived.dispose();
    }
  }

  it("an unchanged file has one identity through a symlink and a relative path", async () => {
    const engine = new SnapshotEngine(dir);
    const link = join(dir, "sha256-blob");
    symlinkSync(engine.info.modelPath, link);
    const direct = await modelIdentity(engine.info.modelPath);
    assert.deepEqual(modelDifferences(direct, await modelIdentity(link)), []);
    assert.deepEqual(modelDifferences(direct, await modelIdentity(relative(process.cwd(), engine.info.modelPath))), []);
  });

  it("the same file restores the chat", async () => {
    const engine = new SnapshotEngine(dir);
    const store = new SnapshotStore(root);
    const messages = await savedChat(engine, store);
    assert.equal((await restore(engine, store, messages)).kind, "snapshot");
  });

  it("a file touched since the save: refused, saying only its modification time changed, at the same path", async () => {
    const engine = new SnapshotEngine(dir);
    const store = new SnapshotStore(root);
    const messages = await savedChat(engine, store);
    utimesSync(engine.info.modelPath, new Date("2030-01-02T03:04:05.000Z"), new Date("2030-01-02T03:04:05.000Z"));
    const outcome = await restore(engine, store, messages);
    assert.equal(outcome.kind, "none");
    const reason = outcome.kind === "none" ? outcome.reason : "";
    assert.match(reason, /^made with another model file \(modified \S+ → 2030-01-02T03:04:05\.000Z; same path /);
    assert.ok(reason.endsWith(`same path ${engine.info.modelPath})`), reason);
    assert.doesNotMatch(reason, /size|header/);
  });

  it("another model at the path: refused, naming its size and header", async () => {
    const engine = new SnapshotEngine(dir);
    const store = new SnapshotStore(root);
    const messages = await savedChat(engine, store);
    const before = readFileSync(engine.info.modelPath).length;
    const replacement = "another model, longer than the first one was";
    writeFileSync(engine.info.modelPath, replacement);
    const outcome = await restore(engine, store, messages);
    const reason = outcome.kind === "none" ? outcome.reason : "";
    assert.ok(reason.includes(`size ${before} → ${replacement.length} bytes`), reason);
    assert.match(reason, /header sha256 [0-9a-f]{12}… → [0-9a-f]{12}…/);
  });

  it("a snapshot saved before paths were recorded is still read, and its refusal names the path now used", async () => {
    const engine = new SnapshotEngine(dir);
    const store = new SnapshotStore(root);
    const messages = await savedChat(engine, store);
    const metaFile = join(root, "chat-a.json");
    const { modelPath: _dropped, ...older } = JSON.parse(readFileSync(metaFile, "utf8")) as Record<string, unknown>;
    writeFileSync(metaFile, JSON.stringify(older));
    assert.equal((await restore(engine, store, messages)).kind, "snapshot", "an older description is valid");
    await savedChat(engine, store);
    writeFileSync(metaFile, JSON.stringify({ ...(JSON.parse(readFileSync(metaFile, "utf8")) as Record<string, unknown>), modelPath: undefined }));
    utimesSync(engine.info.modelPath, new Date("2031-01-01T00:00:00.000Z"), new Date("2031-01-01T00:00:00.000Z"));
    const outcome = await restore(engine, store, messages);
    assert.ok(outcome.kind === "none" && outcome.reason.endsWith(`now ${engine.info.modelPath})`), JSON.stringify(outcome));
  });

  it("times that differ by less than a millisecond are shown as milliseconds, not as two equal dates", () => {
    const a = { size: 1, mtimeMs: 1_700_000_000_000.25, headerSha256: "a".repeat(64) };
    assert.deepEqual(modelDifferences(a, { ...a, mtimeMs: 1_700_000_000_000.5 }), ["modified 1700000000000.25 ms → 1700000000000.5 ms"]);
  });
});
