// A chat panel's snapshot when it is closed (shell/chat/panel-snapshots.ts), on real files and an
// injected clock (timers recorded, fired by the test): a chat closed for good loses its
// snapshot after the grace period; one closed just before the window reloads (the host gone
// before the timer fires) leaves a tombstone, so a later session deletes it instead of
// keeping it forever, while a chat the reload closed and revived keeps its own.

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import { CLOSED_SNAPSHOT_KEPT_MS, PanelSnapshots, type PanelSnapshotsClock } from "../../src/extension/shell/chat/panel-snapshots";
import { SnapshotStore } from "../../src/extension/snapshots/snapshot-store";
import { SnapshotEngine } from "../support/snapshot-engine";

/** Test double of the clock and timers: time moves and timers fire only when the test says. */
class ManualClock implements PanelSnapshotsClock {
  private readonly timers = new Map<number, { run: () => void; at: number }>();
  private nextId = 1;
  constructor(public time: number) {}
  now(): number {
    return this.time;
  }
  setTimeout(run: () => void, ms: number): { id: number; unref?(): void } {
    const id = this.nextId++;
    this.timers.set(id, { run, at: this.time + ms });
    return { id };
  }
  clearTimeout(timer: unknown): void {
    this.timers.delete((timer as { id: number }).id);
  }
  get pending(): number {
    return this.timers.size;
  }
  /** Move on by `ms`, firing the timers due. */
  advance(ms: number): void {
    this.time += ms;
    for (const [id, timer] of [...this.timers]) {
      if (timer.at <= this.time) {
        this.timers.delete(id);
        timer.run();
      }
    }
  }
}

const quietLog = { info: () => undefined, warn: () => undefined };
const DAY = 24 * 60 * 60 * 1000;

describe("PanelSnapshots: closing a chat", () => {
  let dir: string;
  let root: string;
  let engine: SnapshotEngine;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "snapshot-close-"));
    root = join(dir, "kv-snapshots");
    engine = new SnapshotEngine(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function saved(store: SnapshotStore, ...ids: string[]): Promise<void> {
    const chat = await Conversation.create(engine, { turn: { maxTokens: 8 } });
    await chat.send({ text: "hello" });
    for (const id of ids) assert.ok(await store.save(id, chat));
    await chat.dispose();
  }

  it("closed for good: deleted when the grace period ends, tombstone and all", async () => {
    const clock = new ManualClock(1_000_000);
    const store = new SnapshotStore(root);
    await saved(store, "closed");
    const panels = new PanelSnapshots(store, quietLog, clock);
    await panels.forgetLater("closed");
    assert.equal(await store.has("closed"), true, "kept within the grace period");
    clock.advance(3_000);
    await panels.forget("closed"); // Waits behind the timer's delete (same chain).
    assert.deepEqual(readdirSync(root), []);
  });

  it("closed for good: its open-chat file goes too, and only then (not on Reset, not when reopened)", async () => {
    const clock = new ManualClock(1_000_000);
    const store = new SnapshotStore(root);
    await saved(store, "closed", "reset", "back");
    const dropped: string[] = [];
    const panels = new PanelSnapshots(store, quietLog, clock, async (id) => void dropped.push(id));
    await panels.swept;
    await panels.forget("reset"); // Reset Conversation: the panel stays open.
    await panels.forgetLater("closed");
    await panels.forgetLater("back");
    await panels.claim("back");
    clock.advance(3_000);
    await panels.forget("closed");
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(dropped, ["closed"]);

    // Closed just before a reload: the later session's sweep drops its file with its snapshot.
    const first = new PanelSnapshots(store, quietLog, new ManualClock(1_000_000));
    await first.forgetLater("back");
    first.dispose();
    const later: string[] = [];
    const next = new PanelSnapshots(new SnapshotStore(root), quietLog, new ManualClock(1_000_000 + CLOSED_SNAPSHOT_KEPT_MS + DAY), async (id) => void later.push(id));
    assert.deepEqual(await next.swept, ["back"]);
    assert.deepEqual(later, ["back"]);
  });

  it("reopened within the grace period: the deletion is called off", async () => {
    const clock = new ManualClock(1_000_000);
    const store = new SnapshotStore(root);
    await saved(store, "back");
    const panels = new PanelSnapshots(store, quietLog, clock);
    await panels.forgetLater("back");
    await panels.claim("back");
    assert.equal(clock.pending, 0);
    clock.advance(10_000);
    assert.deepEqual(readdirSync(root).sort(), ["back.json", "back.kv"]);
  });

  it("closed just before a window reload: a later session deletes its snapshot; a chat the reload closed and revived keeps its own", async () => {
    const closedAt = 1_000_000;
    const store = new SnapshotStore(root);
    await saved(store, "closed", "reloaded");
    const first = new PanelSnapshots(store, quietLog, new ManualClock(closedAt));
    await first.swept;
    await first.forgetLater("closed"); // The user closes a chat...
    await first.forgetLater("reloaded"); // ...and within 3 s reloads the window, which closes the other one too,
    first.dispose(); // and the extension host shuts down before either timer fires.

    // The reloaded window (a new process: a new store on the same folder): the revived chat claims its snapshot.
    const nextStore = new SnapshotStore(root);
    const next = new PanelSnapshots(nextStore, quietLog, new ManualClock(closedAt + 60_000));
    assert.deepEqual(await next.swept, [], "a fresh tombstone is left alone (its chat may be revived when its tab is shown)");
    await next.claim("reloaded");
    next.dispose();

    const later = new PanelSnapshots(new SnapshotStore(root), quietLog, new ManualClock(closedAt + CLOSED_SNAPSHOT_KEPT_MS + DAY));
    assert.deepEqual(await later.swept, ["closed"], "the closed chat's snapshot is deleted");
    assert.deepEqual(readdirSync(root).sort(), ["reloaded.json", "reloaded.kv"], "the revived chat's snapshot stays");
  });
});
