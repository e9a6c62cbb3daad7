// One completion as a turn waits for it: retried with backoff while the server is busy
// (429/503), shown as queued while the server has not started on it, and ended with a typed
// error (ServerUnreachableError) when it stays silent too long, queued or mid-reply, so every
// request is answered (invariant 8). Every wait ends at once on the caller's signal (a Stop).

import { realSleep, type Sleep } from "../../core/abort";
import { CancelledError, ServerUnreachableError } from "../../core/errors";
import type { CompletionRequest, CompletionResult, ServerDialect } from "./dialect";
import { ServerBusyError } from "./http";
import type { ServerStatusListener } from "../../core/server-status";
import { retryDelayMs, type BusyRetryPolicy } from "./status";

/** Time for the remote backend's waits; tests inject one they advance by hand. */
export interface RemoteClock {
  /** Calls `fire` after `ms` unless the returned function is called first. */
  after(ms: number, fire: () => void): () => void;
  readonly sleep: Sleep;
}

export const REAL_REMOTE_CLOCK: RemoteClock = {
  after: (ms, fire) => {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  },
  sleep: realSleep,
};

export interface CompletionTimeouts {
  /** The server has not started on the request (no response headers: every slot busy) for this long. */
  readonly queuedMs: number;
  /** The server started, then sent nothing (no event, no token) for this long: a prompt this long to process is not expected. */
  readonly silentMs: number;
}

export const DEFAULT_COMPLETION_TIMEOUTS: CompletionTimeouts = { queuedMs: 120_000, silentMs: 300_000 };

/** How long the server may take to send its response headers before the turn shows as queued. */
const QUEUED_AFTER_MS = 300;

export interface CompletionWaits {
  readonly dialect: ServerDialect;
  readonly retry: BusyRetryPolicy;
  readonly timeouts: CompletionTimeouts;
  readonly clock: RemoteClock;
  readonly onStatus?: ServerStatusListener;
}

export async function completeWaiting(
  waits: CompletionWaits,
  request: CompletionRequest,
  onTokens: (ids: readonly number[]) => void,
  signal: AbortSignal,
): Promise<CompletionResult> {
  const { dialect, retry, timeouts, clock, onStatus } = waits;
  let waited = 0;
  let reported = false;
  for (let attempt = 1; ; attempt++) {
    if (signal.aborted) throw new CancelledError();
    // The attempt ends on a Stop or on a silence too long; the error then says which.
    const attemptController = new AbortController();
    const onAbort = () => attemptController.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    let silentFor: "queued" | "silent" | undefined;
    let endSilence: () => void = () => undefined;
    const expectWithin = (ms: number, what: "queued" | "silent") => {
      endSilence();
      endSilence = clock.after(ms, () => {
        silentFor = what;
        attemptController.abort();
      });
    };
    let started = false;
    const endQueuedNotice = clock.after(QUEUED_AFTER_MS, () => {
      if (started) return;
      reported = true;
      onStatus?.({ state: "queued" });
    });
    expectWithin(timeouts.queuedMs, "queued");
    try {
      return await dialect.complete(
        request,
        {
          onStarted: () => {
            started = true;
            endQueuedNotice();
            if (reported) onStatus?.({ state: "running" });
            reported = false;
            expectWithin(timeouts.silentMs, "silent");
          },
          onTokens: (ids) => {
            expectWithin(timeouts.silentMs, "silent");
            onTokens(ids);
          },
        },
        attemptController.signal,
      );
    } catch (error) {
      if (signal.aborted) throw new CancelledError();
      if (silentFor) throw silenceError(dialect, silentFor, silentFor === "queued" ? timeouts.queuedMs : timeouts.silentMs);
      if (!(error instanceof ServerBusyError)) throw error;
      const delay = retryDelayMs(retry, attempt, error.retryAfterMs);
      if (waited + delay > retry.maxWaitMs) {
        throw new ServerBusyError(`${error.message.replace(/\.$/, "")}, and stayed busy for ${Math.round(waited / 1000)} s; try again later.`, error.status, undefined, error.detail);
      }
      waited += delay;
      reported = true;
      onStatus?.({ state: "retrying", reason: error.detail, attempt, retryInMs: delay });
      await clock.sleep(delay, signal);
    } finally {
      endSilence();
      endQueuedNotice();
      signal.removeEventListener("abort", onAbort);
    }
  }
}

function silenceError(dialect: ServerDialect, what: "queued" | "silent", ms: number): ServerUnreachableError {
  const seconds = Math.round(ms / 1000);
  return new ServerUnreachableError(
    what === "queued"
      ? `The ${dialect.kind} server did not start on the reply within ${seconds} s (queued behind other requests); try again later.`
      : `The ${dialect.kind} server sent nothing for ${seconds} s during the reply; it may be stuck. Try again.`,
  );
}
