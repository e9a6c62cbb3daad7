// One disk budget for every KV file (snapshots/kv-disk-budget.ts): chat panels' snapshots and
// the session pool's parked caches, in their real folders, on an engine test double whose
// states save their cache as files. Oldest first across both kinds (file times set by the
// test), through their owners; never the one being restored (held with a deferred promise)
// or the one just written; a parked conversation that lost its file comes back re-prefilled.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import { ChatTemplate } from "../../src/extension/core/chat-template";
import { renderRequest } from "../../src/extension/core/request-pool/request-messages";
import { type RequestMessage } from "../../src/extension/core/request-pool/request-shape";
import { RequestPool, type PoolReply } from "../../src/extension/core/request-pool/request-pool";
import { KvFolderBudget } from "../../src/extension/snapshots/kv-disk-budget";
import { SnapshotStore } from "../../src/extension/snapshots/snapshot-store";
import { SnapshotEngine } from "../support/snapshot-engine";
import { deferred } from "../support/deferred";

const greedy = { temperature: 0 };


async function ask(engine: SnapshotEngine, pool: RequestPool, messages: RequestMessage[], question: string): Promise<PoolReply> {
  messages.push({ role: "user", content: question });
  const { tokens } = renderRequest(new ChatTemplate(engine.chatTemplate), engine.tokenizer, messages);
  const got: number[] = [];
  const reply = await pool.serve({ tokens, maxTokens: 32, sampling: greedy }, (t) => got.push(t));
  messages.push({ role: "assistant", content: engine.tokenizer.decode(got) });
  return reply;
}

const conversation = (): RequestMessage[] => [{ role: "system", content: "You are a test." }];
const setTime = (path: string, seconds: number) => utimesSync(path, seconds, seconds);
const bytesOf = (...paths: string[]) => paths.reduce((sum, p) => sum + statSync(p).size, 0);

describe("one KV disk budget for panels' snapshots and the pool's parked sessions", () => {
  let dir: string;
  let panels: string;
  let poolRoot: string;
  let poolDir: string;
  let engine: SnapshotEngine;
  let budgetBytes: number;
  let budget: KvFolderBudget;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kv-budget-"));
    panels = join(dir, "kv-snapshots");
    poolRoot = join(dir, "chat-provider-sessions");
    poolDir = join(poolRoot, "model-a");
    engine = new SnapshotEngine(dir);
    budgetBytes = 1e9;
    budget = new KvFolderBudget([panels, poolRoot], () => budgetBytes);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const poolFileOf = (sessionId: string) => readdirSync(poolDir).find((f) => f.includes(`-${sessionId}-`));

  async function panelSnapshot(store: SnapshotStore, id: string): Promise<void> {
    const chat = await Conversation.create(engine, { turn: { maxTokens: 16 } });
    await chat.send({ text: `hello from ${id}` });
    assert.ok(await store.save(id, chat));
    await chat.dispose();
  }

  it("the oldest files go first, panels' and pool's alike, and a file left by an earlier session counts", async () => {
    const store = new SnapshotStore(panels, budget);
    const pool = new RequestPool(engine, { size: 1, snapshotDir: poolDir, diskBudget: budget });
    const [a, b, c] = [conversation(), conversation(), conversation()];
    const a1 = await ask(engine, pool, a, "alpha");
    const b1 = await ask(engine, pool, b, "beta"); // a parked
    await ask(engine, pool, c, "gamma"); // b parked
    await panelSnapshot(store, "panel");
    mkdirSync(join(poolRoot, "gone-model"), { recursive: true });
    const orphan = join(poolRoot, "gone-model", "pool-old-s1-1.kv");
    writeFileSync(orphan, "x".repeat(500));
    const aFile = join(poolDir, poolFileOf(a1.sessionId)!);
    const bFile = join(poolDir, poolFileOf(b1.sessionId)!);
    const panelFiles = [join(panels, "panel.kv"), join(panels, "panel.json")];
    // Ages: the orphan, then a's parked cache, then the panel's snapshot, then b's.
    setTime(orphan, 1_000);
    setTime(aFile, 2_000);
    for (const f of panelFiles) setTime(f, 3_000);
    setTime(bFile, 4_000);
    const total = await budget.usedBytes();
    assert.equal(total, bytesOf(orphan, aFile, bFile, ...panelFiles), "every KV file is counted");

    budgetBytes = total - bytesOf(orphan, aFile); // Room for the panel's and b's.
    await budget.enforce();
    assert.equal(await budget.usedBytes(), budgetBytes);
    assert.equal(await store.has("panel"), true);
    assert.deepEqual(
      pool.view().parked.map((p) => [p.id, p.snapshot]),
      [[a1.sessionId, false], [b1.sessionId, true]],
      "a's snapshot was evicted through the pool, which forgot it; b's stays",
    );

    budgetBytes = bytesOf(bFile); // Now the panel's (older than b's) goes too.
    await budget.enforce();
    assert.equal(await store.has("panel"), false);
    assert.deepEqual(readdirSync(panels), []);

    const aBack = await ask(engine, pool, a, "alpha again");
    assert.equal(aBack.sessionId, a1.sessionId);
    assert.equal(aBack.restored, "reprefill", "a lost its file to the budget: re-prefilled, not lost");
    await pool.dispose();
  });

  it("the parked cache being restored is never evicted, whatever its age", async () => {
    const store = new SnapshotStore(panels, budget);
    const pool = new RequestPool(engine, { size: 1, snapshotDir: poolDir, diskBudget: budget });
    const [a, b] = [conversation(), conversation()];
    const a1 = await ask(engine, pool, a, "alpha");
    await ask(engine, pool, b, "beta"); // a parked
    await panelSnapshot(store, "panel");
    setTime(join(poolDir, poolFileOf(a1.sessionId)!), 1_000); // a's cache is the oldest file.

    const loading = deferred();
    const gate = deferred();
    engine.beforeLoad = async () => {
      loading.resolve();
      await gate.promise;
    };
    const back = ask(engine, pool, a, "alpha again");
    await loading.promise; // a is being restored from its file now.
    budgetBytes = 1;
    await budget.enforce();
    assert.equal(await store.has("panel"), false, "the panel's snapshot went instead");
    gate.resolve();
    const reply = await back;
    assert.equal(reply.restored, "snapshot", "a was restored from its file");
    await pool.dispose();
  });

  it("the snapshot just saved stays and older ones make room; one over the whole budget is not kept", async () => {
    const store = new SnapshotStore(panels, budget);
    await panelSnapshot(store, "older");
    const oneSnapshot = bytesOf(join(panels, "older.kv"), join(panels, "older.json"));
    setTime(join(panels, "older.kv"), 9e9); // Even with a newer file time than the one saved next.
    setTime(join(panels, "older.json"), 9e9);
    budgetBytes = Math.floor(oneSnapshot * 1.5);
    await panelSnapshot(store, "newest");
    assert.deepEqual(readdirSync(panels).sort(), ["newest.json", "newest.kv"]);

    budgetBytes = 10;
    const chat = await Conversation.create(engine, { turn: { maxTokens: 16 } });
    await chat.send({ text: "too big" });
    await store.save("huge", chat);
    assert.deepEqual(readdirSync(panels), [], "nothing fits a 10-byte budget");
    await chat.dispose();
  });

  it("a budget of 0 writes no parked snapshot", async () => {
    budgetBytes = 0;
    const pool = new RequestPool(engine, { size: 1, snapshotDir: poolDir, diskBudget: budget });
    await ask(engine, pool, conversation(), "alpha");
    const b = await ask(engine, pool, conversation(), "beta");
    assert.ok(b.parked);
    assert.deepEqual(pool.view().parked.map((p) => p.snapshot), [false]);
    await pool.dispose();
  });
});
