// A revived chat's workspace context: the files and selections its KV cache holds are saved
// with the snapshot, so a chat restored from it sends only what changed since (not the file
// again in full). A chat rebuilt from its transcript holds no context (the transcript keeps
// what the user typed), so there everything is sent again. A malformed saved context refuses
// the whole snapshot (re-prefilled), never half-loaded.

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import type { ChatMessage } from "../../src/extension/core/chat-template";
import { ContextLedger, parseSavedContext, type ContextItem } from "../../src/extension/core/context-delta";
import { PanelSnapshots } from "../../src/extension/shell/chat/panel-snapshots";
import { SnapshotStore } from "../../src/extension/snapshots/snapshot-store";
import { SnapshotEngine } from "../support/snapshot-engine";

const budget = { maxTokensPerTurn: 10_000, maxTokensPerItem: 5_000, countTokens: (t: string) => Math.ceil(t.length / 4) };
const source = Array.from({ length: 40 }, (_, i) => `export const value${i} = ${i};`).join("\n") + "\n";
const file = (content: string): ContextItem => ({ id: "file:src/a.ts", kind: "file", label: "src/a.ts", content, language: "typescript" });
const pinned: ContextItem = { id: "file:b.ts", kind: "file", label: "b.ts", content: "export {};\n", origin: "pinned" };
const quietLog = { info: () => undefined, warn: () => undefined };

describe("the context ledger, saved and restored", () => {
  it("a restored ledger knows what was sent: unchanged items are not sent again, a changed one goes as a diff", () => {
    const ledger = new ContextLedger();
    ledger.delta([file(source), pinned], budget).commit();
    const saved = parseSavedContext(JSON.parse(JSON.stringify(ledger.saved())));
    assert.ok(saved, "what was saved reads back");
    const revived = new ContextLedger();
    revived.restore(saved);
    assert.equal(revived.delta([file(source), pinned], budget).text, "", "nothing is re-sent");
    const changed = revived.delta([file(source.replace("= 7;", "= 70;")), pinned], budget);
    assert.match(changed.text, /src\/a\.ts changed:\n```diff/);
    // The pinned file's origin came back too: dropping it is silent (no "no longer in context" note).
    assert.doesNotMatch(revived.delta([file(source)], budget).text, /b\.ts is no longer/);
  });

  it("refuses a malformed saved context as a whole", () => {
    const good = { id: "file:a", content: "x", label: "a", kind: "file", origin: "auto", truncated: false };
    assert.deepEqual(parseSavedContext([good]), [good]);
    for (const bad of [
      {},
      [{ ...good, kind: "image" }],
      [{ ...good, origin: "guess" }],
      [{ ...good, truncated: "no" }],
      [{ ...good, content: 42 }],
      [good, good],
      [null],
    ]) {
      assert.equal(parseSavedContext(bad), undefined, JSON.stringify(bad));
    }
  });
});

describe("a chat panel's snapshot carries its context", () => {
  let dir: string;
  let root: string;
  let engine: SnapshotEngine;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "snapshot-context-"));
    root = join(dir, "kv-snapshots");
    engine = new SnapshotEngine(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** One turn that carried a file, saved as a panel saves it; the transcript's conversation. */
  async function savedTurn(store: SnapshotStore): Promise<{ messages: ChatMessage[]; ledger: ContextLedger }> {
    const ledger = new ContextLedger();
    const delta = ledger.delta([file(source)], budget);
    const chat = await Conversation.create(engine, { turn: { maxTokens: 8 } });
    const stats = await chat.send({ text: "What is value7?", context: () => delta.text });
    delta.commit();
    assert.ok(await store.save("chat-a", chat, { turn: stats.turn, items: ledger.saved() }), "saved");
    await chat.dispose();
    return { messages: [{ role: "user", content: "What is value7?" }, { role: "assistant", content: stats.reply }], ledger };
  }

  it("restored from the snapshot: the context comes back; rebuilt from the transcript: none does", async () => {
    const store = new SnapshotStore(root);
    const { messages, ledger } = await savedTurn(store);
    const panels = new PanelSnapshots(store, quietLog);
    const revived = await Conversation.create(engine);
    assert.deepEqual(await panels.restore("chat-a", revived, messages), ledger.saved());
    assert.equal(panels.outcomes.get("chat-a")?.kind, "snapshot");
    await revived.dispose();

    await store.delete("chat-a");
    const rebuilt = await Conversation.create(engine);
    assert.deepEqual(await panels.restore("chat-a", rebuilt, messages), [], "no snapshot: the file must be sent again");
    await rebuilt.dispose();
  });

  it("a save that runs after a later turn (queued behind it) leaves the earlier turn's context out", async () => {
    const store = new SnapshotStore(root);
    const ledger = new ContextLedger();
    const delta = ledger.delta([file(source)], budget);
    const chat = await Conversation.create(engine, { turn: { maxTokens: 8 } });
    const first = await chat.send({ text: "What is value7?", context: () => delta.text });
    delta.commit();
    const captured = { turn: first.turn, items: ledger.saved() };
    // The next message was already queued: it runs before the save asked for after the first turn.
    const next = chat.send({ text: "And value8?" });
    const saving = store.save("chat-a", chat, captured);
    await next;
    const meta = await saving;
    assert.ok(meta, "the cache and conversation were saved");
    assert.equal(meta.conversation.turns, 2);
    assert.equal(meta.context, undefined, "not the context of turn 1 beside the cache of turn 2");
    await chat.dispose();
  });

  it("a snapshot whose saved context is malformed is refused and deleted, not half-loaded", async () => {
    const store = new SnapshotStore(root);
    const { messages } = await savedTurn(store);
    const metaFile = join(root, "chat-a.json");
    const meta = JSON.parse(readFileSync(metaFile, "utf8")) as { context: Array<Record<string, unknown>> };
    meta.context[0].kind = "image";
    writeFileSync(metaFile, JSON.stringify(meta));
    const revived = await Conversation.create(engine);
    assert.deepEqual(await store.restore("chat-a", revived, messages), { kind: "none", reason: "unreadable snapshot description" });
    assert.deepEqual(readdirSync(root).filter((f) => f.startsWith("chat-a")), []);
    await revived.dispose();
  });
});
