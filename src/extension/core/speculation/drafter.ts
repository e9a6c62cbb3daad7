// Where drafted tokens come from. A drafter proposes what follows the cache's tokens plus
// the last sampled token (not yet in the cache); the target decides what is kept.

import type { TokenMirror } from "./token-mirror";

export interface Drafter {
  /** Which drafter it is, for stats and logs. */
  readonly kind: "lookup" | "draft";
  /** Up to `max` tokens that may follow `mirror.tokens + tail`; [] when it has no guess. */
  draft(mirror: TokenMirror, tail: readonly number[], max: number): Promise<number[]> | number[];
  /** The target's cache was emptied (reset): forget anything kept beside it. */
  reset?(): Promise<void>;
  dispose?(): Promise<void>;
}

/** Prompt lookup: n-gram matches over the conversation and context the cache already holds. */
export const lookupDrafter: Drafter = {
  kind: "lookup",
  draft: (mirror, tail, max) => mirror.lookup(tail, max),
};

/** Lookup first; the next drafter (a draft model) only when lookup has nothing. */
export function firstThatDrafts(drafters: readonly Drafter[]): Drafter {
  return {
    kind: drafters[drafters.length - 1]?.kind ?? "lookup",
    async draft(mirror, tail, max) {
      for (const drafter of drafters) {
        const draft = await drafter.draft(mirror, tail, max);
        if (draft.length > 0) return draft;
      }
      return [];
    },
    async reset() {
      for (const drafter of drafters) await drafter.reset?.();
    },
    async dispose() {
      for (const drafter of drafters) await drafter.dispose?.();
    },
  };
}
