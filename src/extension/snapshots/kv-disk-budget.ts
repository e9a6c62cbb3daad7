// The disk budget for every KV file, over the folders they are written to: chat panels'
// snapshots (`<id>.kv` + `<id>.json`, and the deltas saved after the cache, `<id>.<n>.kvd`) and the session pool's parked caches (`pool-*.kv`, one
// folder per model). One setting (statefulChat.kvSnapshots.maxDiskMB) bounds them together.
// Files that share a name up to its first dot are one snapshot; the oldest snapshots go
// first, through their owner when one claims them (an owner refuses what it is using), else
// removed directly (left by an earlier session). Temporary files (`*.tmp`) count too: a save
// being written is never touched, but one left by a save that never finished (VS Code closed
// during it: hundreds of MB) is removed at start (`sweep`) and before any snapshot when over
// budget (core/disk/temporary-files.ts tells the two apart, across windows).

import { readdir, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { makePrivateFolder } from "../core/disk/private-files";
import { isStaleTemporary, isTemporaryName } from "../core/disk/temporary-files";
import type { KvDiskBudget, KvFileOwner } from "../core/request-pool/kv-disk-budget";

interface StoredSnapshot {
  /** The path without its extension: what the files of one snapshot share. */
  readonly stem: string;
  readonly paths: string[];
  bytes: number;
  /** The newest file's modification time (ms). */
  writtenAt: number;
}

/** A save's temporary file: counted, never a snapshot to evict. */
interface TemporaryFile {
  readonly path: string;
  readonly bytes: number;
  readonly modifiedMs: number;
}

interface Listing {
  readonly snapshots: StoredSnapshot[];
  readonly temporaries: TemporaryFile[];
}

export class KvFolderBudget implements KvDiskBudget {
  private readonly owners = new Set<KvFileOwner>();
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    /** Folders holding KV files (searched with their subfolders). */
    private readonly roots: readonly string[],
    /** Bytes all of them may take together; 0 turns snapshots off. */
    readonly bytes: () => number,
  ) {}

  register(owner: KvFileOwner): () => void {
    this.owners.add(owner);
    return () => this.owners.delete(owner);
  }

  enforce(justWritten?: string): Promise<void> {
    return this.serially(() => this.evictOverBudget(justWritten));
  }

  /**
   * At start: the folders made private (earlier versions made them 0755), and the temporary
   * files that saves left unfinished removed. Resolves with how many were removed.
   */
  sweep(): Promise<number> {
    return this.serially(async () => {
      await Promise.all(this.roots.map((root) => makePrivateFolder(root)));
      const { temporaries } = await this.list();
      return (await this.removeStale(temporaries)).length;
    });
  }

  /** What the folders hold now, in bytes (tests, reports). */
  async usedBytes(): Promise<number> {
    const { snapshots, temporaries } = await this.list();
    return sum(snapshots) + sum(temporaries);
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.running.catch(() => undefined).then(work);
    this.running = next;
    return next;
  }

  private async evictOverBudget(justWritten: string | undefined): Promise<void> {
    const budget = this.bytes();
    const { snapshots, temporaries } = await this.list();
    let total = sum(snapshots) + sum(temporaries);
    if (total <= budget) return;
    // Orphaned temporaries first: nothing will ever read them.
    for (const gone of await this.removeStale(temporaries)) total -= gone.bytes;
    if (total <= budget) return;
    const pinned = new Set([...this.owners].flatMap((o) => [...o.pinned()]));
    const keep = justWritten === undefined ? undefined : stemOf(justWritten);
    const order = snapshots
      .filter((s) => !s.paths.some((p) => pinned.has(p)))
      .sort((a, b) => Number(a.stem === keep) - Number(b.stem === keep) || a.writtenAt - b.writtenAt);
    for (const snapshot of order) {
      if (total <= budget) break;
      const owner = [...this.owners].find((o) => snapshot.paths.some((p) => o.owns(p)));
      const removed = owner ? await owner.evict(snapshot.paths, snapshot.writtenAt) : await removeAll(snapshot.paths);
      if (removed) total -= snapshot.bytes;
    }
  }

  /** Removes the stale ones among `temporaries`; resolves with those removed. */
  private async removeStale(temporaries: readonly TemporaryFile[]): Promise<TemporaryFile[]> {
    const now = Date.now();
    const stale = temporaries.filter((t) => isStaleTemporary(basename(t.path), t.modifiedMs, now));
    await removeAll(stale.map((t) => t.path));
    return stale;
  }

  private async list(): Promise<Listing> {
    const byStem = new Map<string, StoredSnapshot>();
    const temporaries: TemporaryFile[] = [];
    for (const root of this.roots) {
      const names = await readdir(root, { recursive: true }).catch(() => [] as string[]);
      for (const name of names) {
        const path = join(root, name);
        const info = await stat(path).catch(() => undefined);
        if (!info?.isFile()) continue;
        if (isTemporaryName(name)) {
          temporaries.push({ path, bytes: info.size, modifiedMs: info.mtimeMs });
          continue;
        }
        const stem = stemOf(path);
        const entry = byStem.get(stem) ?? { stem, paths: [], bytes: 0, writtenAt: 0 };
        entry.paths.push(path);
        entry.bytes += info.size;
        entry.writtenAt = Math.max(entry.writtenAt, info.mtimeMs);
        byStem.set(stem, entry);
      }
    }
    return { snapshots: [...byStem.values()], temporaries };
  }
}

function sum(files: readonly { readonly bytes: number }[]): number {
  return files.reduce((total, f) => total + f.bytes, 0);
}

/** The path up to the first dot of its name: `<id>.kv`, `<id>.json` and a snapshot's deltas `<id>.3.kvd` are one snapshot. */
function stemOf(path: string): string {
  const name = basename(path);
  const dot = name.indexOf(".");
  return dot < 0 ? path : join(dirname(path), name.slice(0, dot));
}

async function removeAll(paths: readonly string[]): Promise<boolean> {
  await Promise.all(paths.map((p) => rm(p, { force: true })));
  return true;
}

/** The folders under the extension's global storage that hold KV files, all under one budget. */
export const KV_FOLDERS = { panels: "kv-snapshots", pool: "chat-provider-sessions" } as const;
