// A chat id names files on disk (issue 39, item 7): one coming back from a webview's saved state
// (`panelId: "../../x"`) or from workspace state must never read or write outside storage. The
// serializer's boundary drops it (restoredChatId), and the stores refuse it again.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { isChatId } from "../../src/extension/core/chat-id";
import { restoredChatId } from "../../src/extension/chats/restored-chat-id";
import { TranscriptStore, type SavedTranscript } from "../../src/extension/chats/transcript-store";

const HOSTILE = ["../../x", "..", "a/b", "a\\b", "", "x".repeat(200), "a.json", "/etc/passwd", "C:\\x"];

function transcript(id: string): SavedTranscript {
  return { version: 1, id, title: "t", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", entries: [{ id: "e", role: "user", text: "hi", status: "complete" }] };
}

describe("chat ids that become file names", () => {
  let dir: string;
  let root: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "chat-id-"));
    root = join(dir, "storage", "transcripts");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("the guard takes UUIDs and refuses paths, dots, empty and overlong ids", () => {
    assert.ok(isChatId("3f0c7a3e-2b1d-4c3a-9e8f-0123456789ab"));
    assert.ok(isChatId("panel_1"));
    for (const id of [...HOSTILE, 42, undefined, null]) assert.equal(isChatId(id), false, JSON.stringify(id));
  });

  it("a webview's saved panelId outside the guard is dropped; the remembered ids are used, bad ones skipped", () => {
    assert.equal(restoredChatId({ panelId: "../../x" }, new Set(), ["../y", "good-1"]), "good-1");
    assert.equal(restoredChatId({ panelId: "ok-id" }, new Set(), ["good-1"]), "ok-id");
    assert.equal(restoredChatId({ panelId: "ok-id" }, new Set(["ok-id"]), ["good-1"]), "good-1");
    assert.equal(restoredChatId({ panelId: 7 }, new Set(), [3, "../z"]), undefined);
    assert.equal(restoredChatId(undefined, new Set(), []), undefined);
  });

  it("the transcript store neither writes nor reads outside its folder for a hostile id", async () => {
    const store = new TranscriptStore(root);
    await assert.rejects(store.save(transcript("../../x")), /not a chat id/);
    assert.ok(!existsSync(join(dir, "storage", "x.json")), "nothing written outside chats/");
    mkdirSync(join(dir, "storage"), { recursive: true });
    writeFileSync(join(dir, "storage", "planted.json"), JSON.stringify(transcript("planted")));
    await assert.rejects(store.load("../../planted"), /not a chat id/);
    await assert.rejects(store.remove("../../planted"), /not a chat id/);
    assert.ok(existsSync(join(dir, "storage", "planted.json")), "nothing removed outside chats/");
  });
});
