// Ledger == cache, checked from the engine's side: the session's count of the tokens it has
// evaluated against what the engine says its cache holds (KvState.probeCache). `length` on a
// KvState is the backend wrapper's own bookkeeping (node-llama-cpp's counter, the engine
// process's last reply) and the ledger is ours, so neither can catch the two coming apart.

import type { CacheProbe } from "./engine";

export interface CacheCheck {
  /** Ledger tokens evaluated into the state: what the cache should hold. */
  readonly evaluated: number;
  /** The ledger's length (evaluated tokens and the pending ones that the next call evaluates). */
  readonly ledger: number;
  /** The engine's answer; undefined when the backend has no probe or cannot tell now. */
  readonly probe: CacheProbe | undefined;
  /**
   * The session already sees its state behind its ledger (KvState.length differs from what it
   * evaluated: the engine process died) and re-prefills on its next call. Not a mismatch: the
   * cache is thrown away before anything reads it.
   */
  readonly resyncPending: boolean;
  /** Why the engine's count is not the ledger's, or undefined when it is (or cannot be checked). */
  readonly mismatch: string | undefined;
}

/** Why `probe` does not describe a cache of exactly `evaluated` tokens from position 0, or undefined. */
export function cacheMismatch(probe: CacheProbe, evaluated: number): string | undefined {
  const problems: string[] = [];
  if (probe.held !== evaluated) problems.push(`the engine holds ${probe.held} tokens, the ledger ${evaluated}`);
  const first = probe.held > 0 ? 0 : -1;
  if (probe.firstPosition !== undefined && probe.firstPosition !== first) problems.push(`its first position is ${probe.firstPosition}, not ${first}`);
  return problems.length > 0 ? `${problems.join("; ")} (${probe.source})` : undefined;
}
