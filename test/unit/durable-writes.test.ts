// Writes that survive a power loss (issue 39, item 9): a rename alone can leave an empty file
// under the new name, so each file is flushed before it is renamed into place and its folder
// after: transcripts (the open chat's and history's) and KV snapshots. (The provider's prefix
// entries are not flushed: one cut short fails its size and hash checks and is deleted.)

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import { SnapshotStore } from "../../src/extension/snapshots/snapshot-store";
import { TranscriptStore, type SavedTranscript } from "../../src/extension/chats/transcript-store";
import { FsJournal } from "../support/fs-journal";
import { SnapshotEngine } from "../support/snapshot-engine";

function transcript(id: string): SavedTranscript {
  return {
    version: 1,
    id,
    title: "t",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:01.000Z",
    entries: [{ id: `${id}-0`, role: "user", text: "hello", status: "complete" }],
  };
}

describe("durable writes", () => {
  let dir: string;
  let journal: FsJournal | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "durable-"));
  });
  afterEach(() => {
    journal?.stop();
    journal = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it("a chat's transcript, its history copy and the history index are flushed, then renamed, then their folder flushed", async () => {
    const store = new TranscriptStore(dir);
    journal = new FsJournal();
    await store.save(transcript("a"));
    await store.archive(transcript("a"));
    journal.stop();
    assert.equal(journal.notDurable(join(dir, "chats", "a.json")), undefined);
    const copy = readdirSync(join(dir, "history")).find((f) => f !== "index.json")!;
    assert.equal(journal.notDurable(join(dir, "history", copy)), undefined);
    assert.equal(journal.notDurable(join(dir, "history", "index.json")), undefined);
  });

  it("a KV snapshot's cache file and description are flushed before they are renamed into place", async () => {
    const engine = new SnapshotEngine(dir);
    const root = join(dir, "kv-snapshots");
    const store = new SnapshotStore(root);
    const chat = await Conversation.create(engine, { turn: { maxTokens: 8 } });
    await chat.send({ text: "hello" });
    journal = new FsJournal();
    assert.ok(await store.save("chat", chat));
    journal.stop();
    await chat.dispose();
    assert.equal(journal.notDurable(join(root, "chat.kv")), undefined);
    assert.equal(journal.notDurable(join(root, "chat.json")), undefined);
  });
});
