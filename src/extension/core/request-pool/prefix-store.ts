// Long prefixes that recur across conversations (VS Code's agent-mode instructions and tools,
// a long system prompt), kept as KV caches so a new conversation, or the first request after a
// restart, loads them instead of prefilling them. The session pool talks to this contract;
// file-prefix-store.ts keeps the entries on disk.

export interface PrefixHit {
  /** Every token the entry's cache file holds (the request shares the first `shared`). */
  readonly tokens: readonly number[];
  /** Leading tokens the request and the entry have in common (exact). */
  readonly shared: number;
  /** The backend's cache file holding `tokens`. */
  readonly cachePath: string;
}

export interface PrefixStore {
  /**
   * Find the entry sharing the most leading tokens with `tokens` (at least `minShared`, its
   * token list verified), and hand it to `adopt`, which loads the cache file and resolves with
   * whether the file held exactly `hit.tokens`. The entry is not evicted meanwhile; one whose
   * file is refused is deleted. Resolves with the hit adopted, or undefined.
   */
  restore(tokens: readonly number[], minShared: number, adopt: (hit: PrefixHit) => Promise<boolean>): Promise<PrefixHit | undefined>;
  /** Leading tokens of `tokens` the best entry holds (0 when none does). */
  shared(tokens: readonly number[]): Promise<number>;
  /**
   * Keep a cache holding exactly `tokens`, written by `write(path)` (its size, or undefined when
   * nothing was written). Resolves with whether an entry was added.
   */
  save(tokens: readonly number[], write: (path: string) => Promise<number | undefined>): Promise<boolean>;
}
