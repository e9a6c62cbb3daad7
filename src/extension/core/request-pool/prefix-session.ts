// A pool session and the prefix store: a new conversation starts from the longest stored
// prefix of its request (loaded, then cut back to what the request shares by an exact tail
// erase, so the cells left are the ones a prefill of those tokens would write), and after a
// reply the session's cache is kept when the part of the request that recurs is not stored yet.
// A request that says where its recurring part ends (its stable prefix: instructions and tools,
// stable-prefix.ts) has exactly that part stored, on the way through its prefill.

import type { PrefillProgress, Session } from "../session";
import type { PrefixHit, PrefixStore } from "./prefix-store";
import { commonTokenPrefix } from "./token-prefix";

/**
 * Start the empty `session` from the store's longest prefix of `tokens` (at least `minShared`).
 * Resolves with the request tokens now in its cache; on 0 the session is empty again and the
 * request is prefilled as without a store.
 */
export async function restorePrefix(store: PrefixStore, session: Session, tokens: readonly number[], minShared: number): Promise<number> {
  let hit: PrefixHit | undefined;
  try {
    hit = await store.restore(tokens, minShared, async (found) => {
      await session.restore(found.tokens);
      return session.loadSnapshot(found.cachePath); // Adopted only when the file holds exactly these tokens.
    });
  } catch {
    hit = undefined; // The store could not be read or the file loaded: prefill instead.
  }
  if (!hit) {
    if (session.position > 0) await session.reset();
    return 0;
  }
  await session.rollback(hit.shared);
  // All of it, unless the backend could not erase the tail (then it is re-prefilled lazily).
  return session.evaluated;
}

/**
 * After a reply: store what `session` holds when it still starts with the first `recurring`
 * tokens of `prompt` and the store holds at least `minShared` fewer of them. Resolves with
 * whether an entry was added.
 */
export async function keepPrefix(store: PrefixStore, session: Session, prompt: readonly number[], recurring: number, minShared: number): Promise<boolean> {
  if (commonTokenPrefix(session.tokens, prompt) < recurring) return false; // The session has moved on.
  if (recurring - (await store.shared(prompt)) < minShared) return false; // Stored already.
  const tokens = [...session.tokens];
  return store.save(tokens, (path) => session.saveSnapshot(path));
}

/**
 * Prefill `tokens` into `session` (which holds a prefix of them, up to its position), and on the
 * way store its first `stable` tokens when the prefill crosses that point and the store lacks
 * any of them: the prefill stops there, the cache is written, then the rest is prefilled. A gain
 * of a few tokens is written too: the whole of a stable prefix recurs in every later conversation
 * (one workspace's log path, ~100 tokens, is ~3 s of prefill at 15k tokens on two cores). The store's entry then ends where the
 * next new conversation diverges (no per-conversation value is in it), in memory (the
 * store's index) and on disk, whatever the reply does. A failed write costs only the entry.
 * `onProgress` hears one prefill: done over the tokens to evaluate.
 */
export async function prefillStoringPrefix(
  store: PrefixStore | undefined,
  session: Session,
  tokens: readonly number[],
  stable: number,
  minShared: number,
  signal: AbortSignal,
  onProgress?: PrefillProgress,
): Promise<void> {
  const from = session.position;
  const head = tokens.slice(0, stable);
  const crosses = stable >= minShared && from < stable && stable < tokens.length;
  if (!store || !crosses || (await store.shared(head).catch(() => stable)) >= stable) {
    await session.prefill(tokens.slice(from), signal, onProgress);
    return;
  }
  // Counted from what the cache holds (a ledger restored lazily is evaluated here too).
  const evaluatedBefore = session.evaluated;
  const total = tokens.length - evaluatedBefore;
  // Parts before the last report against the whole; the last ends the count (done == total).
  const part = (last: boolean): PrefillProgress | undefined => {
    if (!onProgress) return undefined;
    const base = session.evaluated - evaluatedBefore;
    return (done, count) => onProgress(base + done, last ? base + count : total);
  };
  await session.prefill(tokens.slice(from, stable), signal, part(false));
  await session.evaluateAll(signal, part(false));
  await store.save(head, (path) => session.saveSnapshot(path)).catch(() => false);
  await session.prefill(tokens.slice(stable), signal, part(true));
}
