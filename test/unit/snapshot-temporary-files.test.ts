// Temporary KV files (issue 39, item 4): a save killed halfway (VS Code closed during it) leaves
// a `*.tmp` of hundreds of MB. The one KV disk budget counts them, and removes the stale ones
// (their writer gone, or untouched for STALE_TEMPORARY_MS) at start and before any snapshot when
// over budget. A save being written now, by this window or another (the folder is shared), stays.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { isStaleTemporary, STALE_TEMPORARY_MS } from "../../src/extension/core/disk/temporary-files";
import { KvFolderBudget } from "../../src/extension/snapshots/kv-disk-budget";

/** A pid no process has: a child that already exited (and was reaped). */
const deadPid = (): number => spawnSync(process.execPath, ["-e", ""]).pid!;
const tempName = (file: string, pid: number) => `${file}.${pid}-${randomUUID()}.tmp`;
const hourAgo = () => Date.now() / 1000 - 3600;

describe("temporary KV files in the disk budget", () => {
  let dir: string;
  let panels: string;
  let pool: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kv-temp-"));
    panels = join(dir, "kv-snapshots");
    pool = join(dir, "chat-provider-sessions");
    mkdirSync(panels, { recursive: true });
    mkdirSync(join(pool, "model-a", "prefixes"), { recursive: true });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function file(path: string, bytes: number, seconds?: number): string {
    writeFileSync(path, "x".repeat(bytes));
    if (seconds !== undefined) utimesSync(path, seconds, seconds);
    return path;
  }

  it("counts temporary files, a live save's and an orphan's", async () => {
    file(join(panels, "a.kv"), 1000);
    file(join(panels, tempName("b.kv", process.pid)), 300);
    file(join(pool, "model-a", "prefixes", tempName("prefix-0123.kv", deadPid())), 200);
    assert.equal(await new KvFolderBudget([panels, pool], () => 1e9).usedBytes(), 1500);
  });

  it("over budget, orphans go before any snapshot; a live save stays and counts", async () => {
    const old = file(join(panels, "old.kv"), 1000, 1_000);
    const orphan = file(join(panels, tempName("gone.kv", deadPid())), 5000);
    const live = file(join(panels, tempName("live.kv", process.pid)), 3000);
    let budget = 4500;
    const kv = new KvFolderBudget([panels], () => budget);
    await kv.enforce();
    assert.ok(!existsSync(orphan), "the orphan was removed");
    assert.ok(existsSync(old), "enough room without evicting the snapshot");
    assert.ok(existsSync(live), "the save being written stays");
    budget = 3500;
    await kv.enforce();
    assert.ok(!existsSync(old), "the live save's bytes count: the old snapshot makes room");
    assert.ok(existsSync(live));
    assert.equal(await kv.usedBytes(), 3000);
  });

  it("the sweep at start removes stale temporaries only, and makes the folders private", async () => {
    chmodSync(panels, 0o755);
    const gone = file(join(panels, tempName("a.kv", deadPid())), 10);
    const oldUnnamed = file(join(panels, `b.json.${randomUUID()}.tmp`), 10, hourAgo());
    const freshUnnamed = file(join(panels, `c.json.${randomUUID()}.tmp`), 10);
    const otherWindow = file(join(pool, "model-a", "prefixes", tempName("prefix-1.kv", process.ppid)), 10);
    const otherWindowOld = file(join(pool, "model-a", tempName("pool-x.kv", process.ppid)), 10, hourAgo());
    const mine = file(join(panels, tempName("d.kv", process.pid)), 10);
    const snapshot = file(join(panels, "e.kv"), 10, hourAgo());
    const removed = await new KvFolderBudget([panels, pool], () => 1e9).sweep();
    assert.equal(removed, 3);
    for (const path of [gone, oldUnnamed, otherWindowOld]) assert.ok(!existsSync(path), `${path} swept`);
    for (const path of [freshUnnamed, otherWindow, mine, snapshot]) assert.ok(existsSync(path), `${path} kept`);
    assert.equal(statSync(panels).mode & 0o777, 0o700);
    assert.equal(statSync(pool).mode & 0o777, 0o700);
  });

  it("stale means: untouched too long, or its writer gone (never this process's or a live one's recent file)", () => {
    const now = Date.now();
    const alive = (pid: number) => pid === 4242;
    assert.equal(isStaleTemporary(tempName("a.kv", 4242), now, now, alive), false);
    assert.equal(isStaleTemporary(tempName("a.kv", 4243), now, now, alive), true);
    assert.equal(isStaleTemporary(tempName("a.kv", process.pid), now, now, () => false), false);
    assert.equal(isStaleTemporary(tempName("a.kv", 4242), now - STALE_TEMPORARY_MS, now, alive), true);
    assert.equal(isStaleTemporary(`a.kv.${randomUUID()}.tmp`, now - 1000, now, alive), false);
  });
});
