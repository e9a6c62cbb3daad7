// Per-turn figures shown in the status line and printed by the CLI.

import type { SessionCounters, StopReason } from "./session";

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

/** Measures time to first token and decode speed of one turn. */
export class TurnClock {
  private readonly start = performance.now();
  private first: number | undefined;
  private last: number | undefined;
  private tokens = 0;

  tokenArrived(): void {
    const now = performance.now();
    this.first ??= now;
    this.last = now;
    this.tokens++;
  }

  get ttftMs(): number {
    return Math.round(((this.first ?? performance.now()) - this.start) * 10) / 10;
  }

  get decodeTokensPerSec(): number {
    if (this.first === undefined || this.last === undefined || this.tokens < 2) return 0;
    const seconds = (this.last - this.first) / 1000;
    return seconds > 0 ? Math.round(((this.tokens - 1) / seconds) * 10) / 10 : 0;
  }
}
