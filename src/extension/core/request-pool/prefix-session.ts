// A pool session and the prefix store: a new conversation starts from the longest stored
// prefix of its request (loaded, then cut back to what the request shares by an exact tail
// erase, so the cells left are the ones a prefill of those tokens would write), and after a
// reply the session's cache is kept when the part of the request that recurs is not stored yet.

import type { Session } from "../session";
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
