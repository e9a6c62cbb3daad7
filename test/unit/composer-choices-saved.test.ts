// A chat's pinned files and its active-file switch outlast a window reload: they are saved with
// the transcript and come back when the chat is revived. Mentions are for one message and are
// not saved. A malformed saved value is dropped (the conversation still loads).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ContextChoices } from "../../src/extension/chats/context-choices";
import { PanelTranscript } from "../../src/extension/chats/chat-transcript";
import { composerChoicesOf, type SavedTranscript } from "../../src/extension/chats/saved-transcript";
import type { TranscriptStore } from "../../src/extension/chats/transcript-store";

const saved = (composer: unknown): SavedTranscript =>
  ({ version: 1, id: "c", title: "t", createdAt: "", updatedAt: "", entries: [], composer }) as SavedTranscript;

describe("composer choices saved with the transcript", () => {
  it("pins and the active-file switch go into the saved transcript and come back; mentions do not", () => {
    const choices = new ContextChoices();
    choices.pin("src/a.ts", true);
    choices.pin("src/b.ts", true);
    choices.activeFileOff = true;
    choices.mention({ kind: "file", path: "src/c.ts" });
    const written: SavedTranscript[] = [];
    const store = { save: async (t: SavedTranscript) => void written.push(t) } as unknown as TranscriptStore;
    const transcript = new PanelTranscript("c", {
      store,
      post: () => undefined,
      setTitle: () => undefined,
      modelName: () => undefined,
      resync: () => undefined,
      logError: () => undefined,
      composer: () => choices.lasting(),
    });
    const snapshot = JSON.parse(JSON.stringify(transcript.snapshot())) as SavedTranscript;
    assert.deepEqual(snapshot.composer, { pinned: ["src/a.ts", "src/b.ts"], activeFileOff: true });

    const revived = new ContextChoices();
    const composer = composerChoicesOf(snapshot);
    assert.ok(composer);
    revived.restoreLasting(composer);
    assert.deepEqual(revived.pinned, ["src/a.ts", "src/b.ts"]);
    assert.equal(revived.activeFileOff, true);
    assert.deepEqual(revived.mentioned, [], "a mention was for one message");
  });

  it("a missing or malformed value is dropped, not fatal", () => {
    assert.equal(composerChoicesOf(saved(undefined)), undefined);
    for (const bad of [null, 3, { pinned: "a.ts", activeFileOff: false }, { pinned: [1], activeFileOff: false }, { pinned: [""], activeFileOff: false }, { pinned: [], activeFileOff: "no" }]) {
      assert.equal(composerChoicesOf(saved(bad)), undefined, JSON.stringify(bad));
    }
    assert.deepEqual(composerChoicesOf(saved({ pinned: ["a.ts", "a.ts"], activeFileOff: false })), { pinned: ["a.ts"], activeFileOff: false });
  });

  it("clear() (Reset Conversation) drops the pins", () => {
    const choices = new ContextChoices();
    choices.pin("src/a.ts", true);
    choices.clear();
    assert.deepEqual(choices.lasting(), { pinned: [], activeFileOff: false });
  });
});
