// A chat's transcript that cannot be read (issue 39, item 9: a power loss left it empty or cut
// short, or something else wrote it) is kept aside as `<id>.json.corrupt`, reported, and never
// overwritten: the chat starts empty and its next save writes a new file beside the old one.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { TranscriptStore, type SavedTranscript } from "../../src/extension/chats/transcript-store";

function transcript(id: string): SavedTranscript {
  return { version: 1, id, title: "t", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:01.000Z", entries: [{ id: `${id}-0`, role: "user", text: "new", status: "complete" }] };
}

describe("a damaged transcript", () => {
  let root: string;
  let chats: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "damaged-"));
    chats = join(root, "chats");
    mkdirSync(chats, { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  for (const [what, text] of [
    ["empty (a power loss after the rename)", ""],
    ["cut short", '{"version":1,"id":"a","title":"t","entries":[{"id":"x","te'],
    ["not a transcript", '{"version":1,"id":"a"}'],
  ] as const) {
    it(`${what}: kept aside, reported, and the next save does not overwrite it`, async () => {
      writeFileSync(join(chats, "a.json"), text);
      const store = new TranscriptStore(root);
      const read = await store.read("a");
      assert.equal(read.kind, "damaged");
      assert.equal(read.kind === "damaged" && read.keptAs, join(chats, "a.json.corrupt"));
      assert.equal(readFileSync(join(chats, "a.json.corrupt"), "utf8"), text, "kept byte for byte");
      await store.save(transcript("a"));
      assert.equal(readFileSync(join(chats, "a.json.corrupt"), "utf8"), text, "not overwritten by the next save");
      assert.equal((await store.load("a"))?.entries[0]?.text, "new");
    });
  }

  it("a second damaged file is kept beside the first, neither overwritten", async () => {
    const store = new TranscriptStore(root);
    writeFileSync(join(chats, "a.json"), "first");
    assert.equal(await store.load("a"), undefined);
    writeFileSync(join(chats, "a.json"), "second");
    const read = await store.read("a");
    assert.equal(read.kind === "damaged" && read.keptAs, join(chats, "a.json.1.corrupt"));
    assert.equal(readFileSync(join(chats, "a.json.corrupt"), "utf8"), "first");
    assert.equal(readFileSync(join(chats, "a.json.1.corrupt"), "utf8"), "second");
  });

  it("a missing file is none, and a good one is read as saved; nothing is moved", async () => {
    const store = new TranscriptStore(root);
    assert.deepEqual(await store.read("missing"), { kind: "none" });
    await store.save(transcript("b"));
    const read = await store.read("b");
    assert.equal(read.kind === "saved" && read.transcript.id, "b");
    assert.deepEqual(readdirSync(chats).sort(), ["b.json"]);
    assert.ok(!existsSync(join(chats, "missing.json.corrupt")));
  });
});
