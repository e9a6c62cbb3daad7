// What one turn cost, measured the same way for us and for the peer: times are taken by
// the caller around the request (client side), from sending until the first and last
// streamed text; decode speed is (chunks − 1) over the time between first and last chunk.

export type Side = "ours" | "peer";

export interface TurnMeasure {
  readonly turn: number;
  /** Which chat of the scenario (0 unless chats are interleaved). */
  readonly chat: number;
  /** Tokens evaluated for this turn's prompt. */
  readonly prefilled: number;
  /** Prompt tokens reused from a cache. */
  readonly cached: number;
  readonly ttftMs: number;
  readonly decodeTokensPerSec: number;
  readonly replyTokens: number;
  /** Tokens the chat's KV cache holds after the turn. */
  readonly contextFill: number;
  readonly capacity: number;
  /** Something the scenario should report: an overflow handled, a context shift, an error. */
  readonly note?: string;
  /** The turn got no answer. */
  readonly failed?: boolean;
}

/** Client-side clock for one streamed reply. */
export class StreamClock {
  private readonly start = performance.now();
  private first: number | undefined;
  private last: number | undefined;
  private chunks = 0;

  chunk(): void {
    const now = performance.now();
    this.first ??= now;
    this.last = now;
    this.chunks++;
  }

  get ttftMs(): number {
    return round1((this.first ?? performance.now()) - this.start);
  }

  get decodeTokensPerSec(): number {
    if (this.first === undefined || this.last === undefined || this.chunks < 2 || this.last === this.first) return 0;
    return round1(((this.chunks - 1) * 1000) / (this.last - this.first));
  }
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
