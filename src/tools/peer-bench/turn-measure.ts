// What one turn cost, measured the same way for us and for the peer: times are taken by
// the caller around the request (client side), from sending until the first and the last
// streamed text. Decode speed counts tokens, not text chunks: the reply's tokens after the
// first (ours: TurnStats.replyTokens, the peer: the server's `predicted_n`) over the time
// between the first and the last chunk. Chunks are kept only to show how they differ.

export type Side = "ours" | "peer";

/** What speculative decoding did during one reply. */
export interface SpeculationStats {
  /** Tokens proposed by a drafter and verified by the target. */
  readonly drafted: number;
  /** Drafted tokens the target kept. */
  readonly accepted: number;
  /** Target forward passes that produced the reply (for the peer: predicted_n − accepted). */
  readonly steps: number;
}

export interface TurnMeasure {
  readonly turn: number;
  /** Which chat of the scenario (0 unless chats are interleaved). */
  readonly chat: number;
  /** Tokens evaluated for this turn's prompt. */
  readonly prefilled: number;
  /** Prompt tokens reused from a cache. */
  readonly cached: number;
  readonly ttftMs: number;
  /** (replyTokens − 1) over the client-side first-to-last chunk interval. */
  readonly decodeTokensPerSec: number;
  readonly replyTokens: number;
  /** Text chunks streamed (our onText calls, the peer's content deltas). */
  readonly chunks?: number;
  /** The client-side first-to-last chunk interval. */
  readonly decodeMs?: number;
  /**
   * The side's own figure: ours the core's TurnStats.decodeTokensPerSec (the CLI's turn
   * events), the peer its `timings.predicted_per_second`.
   */
  readonly reportedDecodeTokensPerSec?: number;
  readonly speculation?: SpeculationStats;
  /** Tokens the chat's KV cache holds after the turn. */
  readonly contextFill: number;
  readonly capacity: number;
  /** Something the scenario should report: an overflow handled, a context shift, an error. */
  readonly note?: string;
  /** The turn got no answer. */
  readonly failed?: boolean;
  /**
   * Tokens of the whole prompt the side was sent for this turn (reused or evaluated): ours
   * TurnStats.cached + prefilled (the ledger before the reply), the peer's `cache_n` +
   * `prompt_n`. The equal-terms check compares them turn by turn.
   */
  readonly promptTokens?: number;
  /** The reply's text (greedy identity and the equal-terms check compare it). */
  readonly reply?: string;
  /** Ours only: the reply's token ids as the ledger holds them (the first differing token). */
  readonly replyTokenIds?: readonly number[];
}

export function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** Median and min–max of finite values (all 0 when there are none). */
export function spread(values: readonly number[]): Spread {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return { median: 0, min: 0, max: 0 };
  return { median: round1(median(finite)), min: round1(Math.min(...finite)), max: round1(Math.max(...finite)) };
}

export interface SpeculationSummary {
  /** Accepted ÷ drafted (undefined when nothing was drafted). */
  readonly acceptance?: number;
  readonly tokensPerStep: number;
  /** Drafted tokens the target kept per target step (verify step). */
  readonly acceptedPerStep: number;
  /** Client-side decode time per target step (the first-to-last chunk interval over the steps after the first token's). */
  readonly msPerStep?: number;
  readonly drafted: number;
}

/** Acceptance, tokens and accepted drafts per target step, ms per step, summed over turns; undefined without speculation stats. */
export function speculationSummary(turns: readonly TurnMeasure[]): SpeculationSummary | undefined {
  const withStats = turns.filter((t) => t.speculation && t.speculation.steps > 0);
  if (withStats.length === 0) return undefined;
  const drafted = withStats.reduce((a, t) => a + t.speculation!.drafted, 0);
  const accepted = withStats.reduce((a, t) => a + t.speculation!.accepted, 0);
  const steps = withStats.reduce((a, t) => a + t.speculation!.steps, 0);
  const tokens = withStats.reduce((a, t) => a + t.replyTokens, 0);
  // The first token comes with the prompt (both sides count its step): the first-to-last chunk interval spans the other steps.
  const timed = withStats.filter((t) => t.decodeMs !== undefined && t.speculation!.steps > 1);
  const ms = timed.reduce((a, t) => a + t.decodeMs!, 0);
  const timedSteps = timed.reduce((a, t) => a + t.speculation!.steps - 1, 0);
  return {
    acceptance: drafted > 0 ? Math.round((accepted / drafted) * 1000) / 1000 : undefined,
    tokensPerStep: Math.round((tokens / steps) * 100) / 100,
    acceptedPerStep: Math.round((accepted / steps) * 100) / 100,
    msPerStep: timedSteps > 0 ? Math.round((ms / timedSteps) * 100) / 100 : undefined,
    drafted,
  };
}

/** Client-side decode time per reply token after the first (a plain one-token step); undefined without timed tokens. */
export function msPerToken(turns: readonly TurnMeasure[]): number | undefined {
  const timed = turns.filter((t) => t.decodeMs !== undefined && t.replyTokens > 1);
  const tokens = timed.reduce((a, t) => a + t.replyTokens - 1, 0);
  return tokens > 0 ? Math.round((timed.reduce((a, t) => a + t.decodeMs!, 0) / tokens) * 100) / 100 : undefined;
}
