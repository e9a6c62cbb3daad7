import assert from "node:assert/strict";
import { mkdtemp, readdir, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { TranscriptStore, type SavedTranscript } from "../../src/extension/shell/transcript-store";
import { conversationOfEntries } from "../support/conversation-of";

function transcript(id: string, n: number): SavedTranscript {
  return {
    version: 1,
    id,
    title: `chat ${id}`,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    entries: Array.from({ length: n }, (_, i) => ({ id: `${i}`, role: i % 2 ? "assistant" : "user", text: `m${i}`, status: "complete" }) as const),
  };
}

describe("TranscriptStore", () => {
  it("saves atomically and loads back; the last of many concurrent saves wins", async () => {
    const root = await mkdtemp(join(tmpdir(), "sc-store-"));
    const store = new TranscriptStore(root);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.save(transcript("a", i + 1))));
    const loaded = await store.load("a");
    assert.equal(loaded?.entries.length, 20);
    const files = await readdir(join(root, "chats"));
    assert.deepEqual(files, ["a.json"], "no temp files left behind");
  });

  it("a damaged or missing file loads as undefined instead of throwing", async () => {
    const root = await mkdtemp(join(tmpdir(), "sc-store-"));
    await mkdir(join(root, "chats"), { recursive: true });
    await writeFile(join(root, "chats", "bad.json"), "{not json");
    const store = new TranscriptStore(root);
    assert.equal(await store.load("bad"), undefined);
    assert.equal(await store.load("missing"), undefined);
  });

  it("archives into history, newest first, skipping empty chats and damaged files", async () => {
    const root = await mkdtemp(join(tmpdir(), "sc-store-"));
    const store = new TranscriptStore(root);
    await store.archive(transcript("old", 2));
    await store.archive(transcript("new", 4));
    await store.archive(transcript("empty", 0));
    await writeFile(join(root, "history", "junk.json"), "][");
    const items = await store.history();
    assert.deepEqual(items.map((i) => i.title), ["chat new", "chat old"]);
    const again = await store.loadHistory(items[0].file);
    assert.equal(again?.entries.length, 4);
    assert.equal(await store.loadHistory("../chats/a.json"), undefined, "no path traversal");
  });

  it("the conversation rebuilt from a transcript skips unsent and failed turns", () => {
    const messages = conversationOfEntries([
      { id: "1", role: "user", text: "hi", status: "complete" },
      { id: "2", role: "assistant", text: "hello", status: "complete" },
      { id: "3", role: "user", text: "never read", status: "not-sent" },
      { id: "4", role: "user", text: "broken", status: "complete" },
      { id: "5", role: "assistant", text: "", status: "error" },
      { id: "6", role: "user", text: "stopped one", status: "complete" },
      { id: "7", role: "notice", text: "summarized", status: "complete" },
      { id: "8", role: "assistant", text: "partial", status: "stopped" },
    ]);
    assert.deepEqual(messages.map((m) => m.content), ["hi", "hello", "stopped one", "partial"]);
  });
});
