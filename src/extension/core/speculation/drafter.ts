// A drafter that costs something to ask (a draft model): it proposes what follows the cache's
// tokens plus the last sampled token (not yet in the cache); the target decides what is kept.
// Prompt lookup is not one: it is free to ask and says how long its match is, so the
// speculative state asks the token mirror itself (token-mirror.ts).

import type { TokenMirror } from "./token-mirror";

export interface Drafter {
  /** Which drafter it is, for stats and logs. */
  readonly kind: "draft";
  /** Up to `max` tokens that may follow `mirror.tokens + tail`; [] when it has no guess. */
  draft(mirror: TokenMirror, tail: readonly number[], max: number): Promise<number[]> | number[];
  /** The target's cache was emptied (reset): forget anything kept beside it. */
  reset?(): Promise<void>;
  dispose?(): Promise<void>;
}

