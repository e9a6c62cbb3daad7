// Files holding workspace code and prompts are the user's only (issue 39, item 10): transcripts,
// KV snapshots (cache, description, deltas' folder, tombstone) and the provider's prefix entries
// (`.kv`, `.tokens`, `.json`) are written 0600 in folders made 0700, and a folder an earlier
// version made 0755 is made 0700 on the next write.

import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import { FilePrefixStore } from "../../src/extension/core/request-pool/file-prefix-store";
import { SnapshotStore } from "../../src/extension/snapshots/snapshot-store";
import { TranscriptStore } from "../../src/extension/chats/transcript-store";
import { SnapshotEngine } from "../support/snapshot-engine";

const modeOf = (path: string) => statSync(path).mode & 0o777;

function assertPrivate(folder: string): void {
  assert.equal(modeOf(folder).toString(8), "700", folder);
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    assert.equal(modeOf(path).toString(8), statSync(path).isDirectory() ? "700" : "600", path);
  }
}

describe("private files", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "private-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("transcripts: the open chat's, history's copies and index", async () => {
    mkdirSync(join(dir, "chats"), { recursive: true });
    chmodSync(join(dir, "chats"), 0o755); // as an earlier version left it
    const store = new TranscriptStore(dir);
    const saved = {
      version: 1,
      id: "a",
      title: "t",
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:01.000Z",
      entries: [{ id: "a-0", role: "user", text: "secret code", status: "complete" }],
    } as const;
    await store.save(saved);
    await store.archive(saved);
    assertPrivate(join(dir, "chats"));
    assertPrivate(join(dir, "history"));
  });

  it("KV snapshots: cache, description and tombstone", async () => {
    const engine = new SnapshotEngine(dir);
    const root = join(dir, "kv-snapshots");
    const store = new SnapshotStore(root);
    const chat = await Conversation.create(engine, { turn: { maxTokens: 8 } });
    await chat.send({ text: "secret code" });
    assert.ok(await store.save("chat", chat));
    await store.markClosed("other", 1);
    await chat.dispose();
    assert.deepEqual(readdirSync(root).sort(), ["chat.json", "chat.kv", "other.closed"]);
    assertPrivate(root);
  });

  it("the provider's prefix entries: cache, tokens and description", async () => {
    const prefixes = join(dir, "prefixes");
    const store = new FilePrefixStore({ dir: prefixes, key: "k" });
    assert.ok(await store.save([1, 2, 3], async (path) => {
      await writeFile(path, "cache bytes");
      return 11;
    }));
    store.dispose();
    assert.equal(readdirSync(prefixes).length, 3);
    assertPrivate(prefixes);
  });
});
