// How long an engine call may go without progress before the engine process is taken to be
// stuck in a native call (a GPU driver hang, a deadlock in the backend). The heartbeat only
// shows that the process's event loop runs; the model's work runs on native threads, so a
// native call that never returns keeps the heartbeat going. Progress is what the process
// sends for a call: its reply, or one of its reply's tokens. Pure logic, no process and no
// timers: unit-tested, and driven by EngineProcess's watchdog.

import type { Request } from "./protocol";

export interface ProgressDeadlines {
  /**
   * The time one step may take: a prefill chunk of up to STEP_TOKENS tokens, one decoded
   * token, one verify batch, a state's tail erased, a state reset, disposed or probed. A call
   * gets one step per STEP_TOKENS tokens it carries. Defaults to 120 000 (2 min): a 1.5B model
   * on 2 CPU cores prefills 512 tokens in well under a minute and decodes a token in under
   * 0.1 s (test/bench/results/shape-1.5b), so only a call that stopped runs into it.
   */
  readonly stepMs?: number;
  /**
   * The calls that do much work with no progress events on the way, and whose size is not
   * known here: a KV snapshot save, load or append (disk I/O of up to several GB in one native
   * call), and creating a state (its KV cache allocated, GBs on a GPU; on a speculative
   * engine's first state the verify cost is measured too: about 80 decodes and verify
   * batches, see core/speculation/verify-cost.ts). Defaults to 600 000 (10 min), or a step per
   * STEP_TOKENS tokens the call carries when that is longer.
   */
  readonly longCallMs?: number;
}

export const DEFAULT_STEP_MS = 120_000;
export const DEFAULT_LONG_CALL_MS = 600_000;
export const STEP_TOKENS = 512;

/** What the loaded engine does that changes its calls' deadlines (learned from the load request). */
export interface EngineTraits {
  /**
   * A draft model drafts for it: before a draft, the draft model prefills whatever of the
   * context it does not hold yet (all of it on a reply's first draft after a load, a crash
   * or a restore), between two tokens of the reply.
   */
  readonly draftModel: boolean;
  /** HTTP to a server, no native call here: its own completion timeouts apply. */
  readonly remote: boolean;
}

/** One call's allowance, as its progress arrives. */
export interface CallDeadline {
  /** How long the call may now go without progress; undefined: no deadline. */
  readonly allowanceMs: number | undefined;
  /** A token of the call arrived at `now` (the watchdog's clock). */
  progressed(now: number): void;
}

/** `tokens` of work in steps: at least one. */
function steps(tokens: number): number {
  return Math.max(1, Math.ceil(tokens / STEP_TOKENS));
}

/**
 * The deadline of `request`, sent at `now`. `held`: the tokens the state already holds
 * (a generateReply's draft model may have to prefill them all before its first draft).
 */
export function callDeadline(request: Request, limits: ProgressDeadlines, engine: EngineTraits, now: number, held = 0): CallDeadline {
  const stepMs = limits.stepMs ?? DEFAULT_STEP_MS;
  const longCallMs = limits.longCallMs ?? DEFAULT_LONG_CALL_MS;
  // A server's prefill of a whole conversation is not bounded by our chunks, and its
  // requests have their own timeouts (backends/remote/completion-waits.ts).
  if (engine.remote) return fixed(undefined);
  switch (request.op) {
    case "load":
      // Exempt: one native call with no progress events (weights from a slow disk, many GB
      // offloaded to a GPU, a Core ML compile) that can take many minutes. Its wait can be
      // ended by the user (the load notification's Cancel, Stop on a turn waiting for a
      // restart), and the stall watchdog still catches a frozen process.
      return fixed(undefined);
    case "truncate":
    case "reset":
    case "disposeState":
    case "probeCache":
      return fixed(stepMs);
    case "evaluate":
    case "evaluateTopK":
      return fixed(stepMs * steps(request.tokens.length));
    case "saveSnapshot":
    case "saveSnapshotDelta":
      return fixed(Math.max(longCallMs, stepMs * steps(request.tokens.length)));
    case "createState":
    case "loadSnapshot":
    case "appendSnapshot":
      return fixed(longCallMs);
    case "generateReply":
      return new ReplyDeadline(stepMs, steps(request.tokens.length), engine.draftModel ? stepMs * steps(held + request.tokens.length) : 0, now);
  }
}

function fixed(allowanceMs: number | undefined): CallDeadline {
  return { allowanceMs, progressed: () => undefined };
}

/**
 * A reply: before its first token, a step per STEP_TOKENS input tokens (their prefill and the
 * first decode); then a step per token (a decode, or a verify batch of drafts). A draft model
 * has, once per reply, the time to prefill the whole context on top: the first gap that takes
 * longer than its step spends it.
 */
class ReplyDeadline implements CallDeadline {
  private gapSteps: number;
  private last: number;

  constructor(
    private readonly stepMs: number,
    firstSteps: number,
    private catchUpMs: number,
    now: number,
  ) {
    this.gapSteps = firstSteps;
    this.last = now;
  }

  get allowanceMs(): number {
    return this.stepMs * this.gapSteps + this.catchUpMs;
  }

  progressed(now: number): void {
    if (now - this.last > this.stepMs * this.gapSteps) this.catchUpMs = 0;
    this.gapSteps = 1;
    this.last = now;
  }
}
