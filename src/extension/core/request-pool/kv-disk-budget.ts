// One disk budget for every KV file the extension writes (chat panels' snapshots and the
// pool's parked sessions): the contract the pool is handed, implemented over the file system
// in snapshots/kv-disk-budget.ts. Files are evicted oldest first, each through the owner
// that wrote it, so an owner can refuse one it is using and forget one it loses.

export interface KvFileOwner {
  /** Whether `path` is one of its files (then it is evicted through evict(), not behind its back). */
  owns(path: string): boolean;
  /** Files it is writing or restoring now: never evicted. */
  pinned(): Iterable<string>;
  /**
   * Remove `paths` (one snapshot: a cache and what describes it) unless they are in use or
   * were written again after `writtenAt` (ms, the newest file's time when they were listed).
   * Resolves with whether they were removed.
   */
  evict(paths: readonly string[], writtenAt: number): Promise<boolean>;
}

export interface KvDiskBudget {
  /** Bytes all KV files may take together now; 0: none are written. */
  bytes(): number;
  /** An owner of files under the budget's folders; returns its unregistration. */
  register(owner: KvFileOwner): () => void;
  /**
   * Evict the oldest files until everything fits (runs one at a time). The snapshot that
   * holds `justWritten` goes last: only when it alone is over the budget.
   */
  enforce(justWritten?: string): Promise<void>;
}
