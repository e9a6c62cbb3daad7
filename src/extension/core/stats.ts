// Per-turn figures shown in the status line and printed by the CLI.

import type { StopReason } from "./generation";
import type { SessionCounters } from "./session";

export type OverflowStrategy = "summarize" | "truncate";
export type TurnStrategy = "stateful" | "naive";

export interface OverflowEvent {
  readonly strategy: OverflowStrategy;
  readonly positionBefore: number;
  /** Tokens in the fresh state after it was seeded (system prompt, summary, kept turns). */
  readonly positionAfter: number;
  readonly tokensFreed: number;
  readonly summary?: string;
}

/** What speculative decoding did in one reply (all zero drafts when it is off or found nothing). */
export interface SpeculationStats {
  /** Tokens proposed by prompt lookup or the draft model. */
  readonly drafted: number;
  /** Drafted tokens the target model agreed with. */
  readonly accepted: number;
  /** Target forward passes that sampled reply tokens. */
  readonly steps: number;
  /** Reply tokens per target step (1 without speculation). */
  readonly tokensPerStep: number;
}

export function speculationOf(before: SessionCounters, after: SessionCounters): SpeculationStats | undefined {
  const steps = after.steps - before.steps;
  if (steps <= 0) return undefined;
  const drafted = after.drafted - before.drafted;
  const accepted = after.accepted - before.accepted;
  // Each step samples one token of its own, plus the drafted ones it accepted.
  return { drafted, accepted, steps, tokensPerStep: Math.round(((steps + accepted) / steps) * 100) / 100 };
}

export interface TurnStats {
  readonly turn: number;
  /** Tokens the backend evaluated for this turn's prompt (new tokens; everything on naive/overflow/restore). */
  readonly prefilled: number;
  /** Tokens reused from the cache without being evaluated again. */
  readonly cached: number;
  /**
   * Remote backend only: the prompt tokens the inference server reports it reused for this
   * turn's reply (its own measure, not ours). Below the previous turn's position when the
   * server evicted or lost the conversation: a miss is shown, never hidden.
   */
  readonly serverCached?: number;
  /**
   * Tokens taken back from the cache this turn because the chat template renders the
   * history differently from how it was generated (0 when the render extended the ledger).
   */
  readonly rewound: number;
  readonly position: number;
  readonly capacity: number;
  readonly ttftMs: number;
  readonly decodeTokensPerSec: number;
  readonly replyTokens: number;
  /** Speculative decoding in this reply: drafted, accepted, target steps, tokens per step. */
  readonly speculation?: SpeculationStats;
  /** Reply tokens spent inside the model's reasoning markers (`<think>` … `</think>`). */
  readonly thinkingTokens: number;
  readonly reply: string;
  readonly stopReason: StopReason;
  readonly strategy: TurnStrategy;
  readonly overflow?: OverflowEvent;
  /** The state was rebuilt from a saved transcript on this turn. */
  readonly restored: boolean;
  /**
   * The first turn after a restore or an engine restart: the cache came from a KV snapshot
   * (`tokens` reused), or the saved conversation was re-prefilled (`tokens` evaluated again).
   */
  readonly resumed?: { readonly from: "snapshot" | "reprefill"; readonly tokens: number };
}

/**
 * Measures time to first token and decode speed of one reply, from the arrival of each token
 * (or each text chunk, for a client that sees only those: the peer bench's server side).
 */
export class TurnClock {
  private readonly start = performance.now();
  private first: number | undefined;
  private last: number | undefined;
  private count = 0;

  tokenArrived(): void {
    const now = performance.now();
    this.first ??= now;
    this.last = now;
    this.count++;
  }

  /** Arrivals so far. */
  get arrivals(): number {
    return this.count;
  }

  get ttftMs(): number {
    return round1((this.first ?? performance.now()) - this.start);
  }

  /** First to last arrival. */
  get decodeMs(): number {
    return this.first === undefined || this.last === undefined ? 0 : round1(this.last - this.first);
  }

  get decodeTokensPerSec(): number {
    return this.decodeRateOf(this.count);
  }

  /** `tokens` decoded over the first-to-last arrival interval (counted elsewhere: a server's own count). */
  decodeRateOf(tokens: number): number {
    return this.first === undefined || this.last === undefined ? 0 : decodeRate(tokens, this.last - this.first);
  }
}

/** Tokens per second when `tokens` arrived over `intervalMs`, the first at its start. */
export function decodeRate(tokens: number, intervalMs: number): number {
  if (tokens < 2 || !(intervalMs > 0)) return 0;
  return round1(((tokens - 1) * 1000) / intervalMs);
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/** What the turn runner knows once a turn is done; turnStatsOf() says what it cost. */
export interface TurnFacts {
  readonly turn: number;
  readonly countersBefore: SessionCounters;
  readonly countersAfter: SessionCounters;
  readonly speculation?: SpeculationStats;
  /** Ledger tokens the turn kept (the render's common prefix with the ledger). */
  readonly kept: number;
  /** Of those, the ones the cache held when the turn began. */
  readonly cachedBefore: number;
  readonly rewound: number;
  readonly position: number;
  readonly capacity: number;
  readonly serverCached?: number;
  readonly clock: TurnClock;
  readonly reply: { readonly text: string; readonly tokens: number; readonly thinkingTokens: number; readonly stopReason: StopReason };
  readonly strategy: TurnStrategy;
  readonly overflow?: OverflowEvent;
  /** The state was rebuilt from a saved transcript, its cache from a KV snapshot, or lost under us. */
  readonly restored: boolean;
  readonly fromSnapshot: boolean;
  readonly stateLost: boolean;
}

export function turnStatsOf(f: TurnFacts): TurnStats {
  // An overflow or a naive turn starts from a fresh state: nothing of the cache was reused.
  const fresh = f.overflow !== undefined || f.strategy === "naive";
  return {
    turn: f.turn,
    prefilled: f.countersAfter.prefilled - f.countersBefore.prefilled,
    cached: fresh ? 0 : f.cachedBefore,
    ...(f.serverCached !== undefined ? { serverCached: f.serverCached } : {}),
    rewound: f.overflow ? 0 : f.rewound,
    position: f.position,
    capacity: f.capacity,
    ttftMs: f.clock.ttftMs,
    decodeTokensPerSec: f.clock.decodeTokensPerSec,
    replyTokens: f.reply.tokens,
    speculation: f.speculation,
    thinkingTokens: f.reply.thinkingTokens,
    reply: f.reply.text,
    stopReason: f.reply.stopReason,
    strategy: f.strategy,
    overflow: f.overflow,
    restored: f.restored,
    resumed: f.fromSnapshot
      ? { from: "snapshot", tokens: f.cachedBefore }
      : f.restored || f.stateLost
        ? { from: "reprefill", tokens: f.kept - f.cachedBefore }
        : undefined,
  };
}
