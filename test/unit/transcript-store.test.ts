import assert from "node:assert/strict";
import { mkdtemp, readdir, writeFile, mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { TranscriptStore, type SavedTranscript } from "../../src/extension/chats/transcript-store";
import { conversationOfEntries } from "../support/conversation-of";

function transcript(id: string, n: number): SavedTranscript {
  return {
    version: 1,
    id,
    title: `chat ${id}`,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    entries: Array.from({ length: n }, (_, i) => ({ id: `${id}-${i}`, role: i % 2 ? "assistant" : "user", text: `m${i}`, status: "complete" }) as const),
  };
}

function entry(id: string, role: "user" | "assistant", text: string) {
  return { id, role, text, status: "complete" } as const;
}

/** A panel's transcript of conversation `key` with `n` entries (entry ids start with the key, as UUIDs would differ per conversation). */
function conversation(panel: string, key: string, n: number, minute = 0): SavedTranscript {
  return {
    version: 1,
    id: panel,
    title: `chat ${key}`,
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: new Date(Date.UTC(2026, 0, 1, 0, minute, n)).toISOString(),
    entries: Array.from({ length: n }, (_, i) => entry(`${key}-${i}`, i % 2 ? "assistant" : "user", `${key} m${i}`)),
  };
}

async function historyFiles(root: string): Promise<string[]> {
  return (await readdir(join(root, "history"))).filter((f) => f.endsWith(".json") && f !== "index.json");
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

  it("a conversation archived again on every reset, close and reload is kept once, in its latest form", async () => {
    const root = await mkdtemp(join(tmpdir(), "sc-store-"));
    const store = new TranscriptStore(root);
    // One panel: archived at a close (reload), reopened, continued, closed again.
    await store.archive(conversation("panel", "c1", 2));
    await store.archive(conversation("panel", "c1", 4));
    await store.archive(conversation("panel", "c1", 4));
    // Reopened from history (a new panel id, the same entries), closed unchanged.
    await store.archive(conversation("other-panel", "c1", 4));
    // The same panel after a reset: a new conversation.
    await store.archive(conversation("panel", "c2", 2, 1));
    const items = await store.history();
    assert.deepEqual(items.map((i) => [i.title, i.entries]), [["chat c2", 2], ["chat c1", 4]]);
    assert.equal((await historyFiles(root)).length, 2, "the superseded copies' files are gone");
    // A copy that only repeats the start of a kept one (a second panel reopened from the same history item, closed unchanged) adds nothing.
    await store.archive(conversation("third-panel", "c1", 2));
    assert.deepEqual((await store.history()).map((i) => [i.title, i.entries]), [["chat c2", 2], ["chat c1", 4]]);
  });

  it("two continuations of one reopened conversation are both kept", async () => {
    const root = await mkdtemp(join(tmpdir(), "sc-store-"));
    const store = new TranscriptStore(root);
    const base = conversation("p1", "c1", 2);
    await store.archive(base);
    await store.archive({ ...base, id: "p2", entries: [...base.entries, entry("b1", "user", "left")] });
    await store.archive({ ...base, id: "p3", entries: [...base.entries, entry("b2", "user", "right")] });
    const items = await store.history();
    assert.equal(items.length, 2, "the base copy is superseded, the branches stay");
    assert.deepEqual(items.map((i) => i.entries), [3, 3]);
  });

  it("history holds at most statefulChat.history.maxConversations conversations; the oldest go", async () => {
    const root = await mkdtemp(join(tmpdir(), "sc-store-"));
    let max = 3;
    const store = new TranscriptStore(root, { maxConversations: () => max });
    for (let i = 1; i <= 5; i++) await store.archive(conversation("panel", `c${i}`, 2, i));
    assert.deepEqual((await store.history()).map((i) => i.title), ["chat c5", "chat c4", "chat c3"]);
    assert.equal((await historyFiles(root)).length, 3);
    max = 1; // a lowered setting applies on the next listing
    assert.deepEqual((await store.history()).map((i) => i.title), ["chat c5"]);
    assert.equal((await historyFiles(root)).length, 1);
  });

  it("Delete removes the chosen conversations, Clear removes all; both from disk", async () => {
    const root = await mkdtemp(join(tmpdir(), "sc-store-"));
    const store = new TranscriptStore(root);
    for (let i = 1; i <= 3; i++) await store.archive(conversation("panel", `c${i}`, 2, i));
    const items = await store.history();
    await store.deleteHistory([items[1]!.file, "../chats/a.json"]);
    assert.deepEqual((await store.history()).map((i) => i.title), ["chat c3", "chat c1"]);
    assert.equal(await store.loadHistory(items[1]!.file), undefined);
    await store.clearHistory();
    assert.deepEqual(await store.history(), []);
    assert.deepEqual(await historyFiles(root), []);
  });

  it("listing reads the index, not every file; files the index does not know are read once and de-duplicated", async () => {
    const root = await mkdtemp(join(tmpdir(), "sc-store-"));
    // Copies written before the index existed: one conversation archived three times, another once.
    await mkdir(join(root, "history"), { recursive: true });
    const old = [conversation("p", "c1", 2, 1), conversation("p", "c1", 4, 2), conversation("p", "c1", 6, 3), conversation("p", "c2", 2, 4)];
    for (const [i, t] of old.entries()) await writeFile(join(root, "history", `2026-01-01T00-00-0${i}-000Z-p.json`), JSON.stringify(t));
    const store = new TranscriptStore(root);
    assert.deepEqual((await store.history()).map((i) => [i.title, i.entries]), [["chat c2", 2], ["chat c1", 6]]);
    assert.equal((await historyFiles(root)).length, 2, "the old duplicates are removed");
    // Listed from the index: a kept file damaged since is not parsed again (and then fails to open, not to list).
    const [c2] = await store.history();
    await writeFile(join(root, "history", c2!.file), "{damaged");
    assert.deepEqual((await new TranscriptStore(root).history()).map((i) => i.title), ["chat c2", "chat c1"]);
    assert.equal(await store.loadHistory(c2!.file), undefined);
    // A copy another window wrote is picked up; one whose file is gone is dropped.
    await writeFile(join(root, "history", "2026-02-01T00-00-00-000Z-w.json"), JSON.stringify(conversation("w", "c3", 2, 9)));
    await rm(join(root, "history", c2!.file));
    assert.deepEqual((await store.history()).map((i) => i.title), ["chat c3", "chat c1"]);
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
