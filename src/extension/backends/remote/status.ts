// How a remote turn waits for a busy server (HTTP 429/503): the retry policy and its delays.
// What it tells while it waits (ServerStatus) is the engine contract's: core/server-status.ts.

export interface BusyRetryPolicy {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Give up (the busy error ends the turn) once this long was spent waiting. */
  readonly maxWaitMs: number;
}

export const DEFAULT_BUSY_RETRY: BusyRetryPolicy = { baseDelayMs: 500, maxDelayMs: 8_000, maxWaitMs: 120_000 };

/** Exponential backoff with ±20% jitter, or the server's Retry-After (capped at maxDelayMs). */
export function retryDelayMs(policy: BusyRetryPolicy, attempt: number, retryAfterMs?: number, random = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(policy.maxDelayMs, retryAfterMs);
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exponential * (0.8 + 0.4 * random()));
}
