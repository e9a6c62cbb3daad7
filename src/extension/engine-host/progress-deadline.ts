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
   * token, one verify batch, a state created, erased or probed. A call gets one step per
   * STEP_TOKENS tokens it carries. Defaults to 120 000 (2 min): a 1.5B model on 2 CPU cores
   * prefills 512 tokens in well under that, so only a call that stopped runs into it.
   */
  readonly stepMs?: number;
  /**
   * A KV snapshot save, load or append: disk I/O of up to several GB in one native call, with
   * no progress events, and a load's size is not known here. Defaults to 600 000 (10 min), or
   * a step per STEP_TOKENS tokens the call carries when that is longer.
   */
  readonly snapshotMs?: number;
}

export const DEFAULT_STEP_MS = 120_000;
export const DEFAULT_SNAPSHOT_MS = 600_000;
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
export function steps(tokens: number): number {
  return Math.max(1, Math.ceil(tokens / STEP_TOKENS));
}

/**
 * The deadline of `request`, sent at `now`. `held`: the tokens the state already holds
 * (a generateReply's draft model may have to prefill them all before its first draft).
 */
export function callDeadline(request: Request, limits: ProgressDeadlines, engine: EngineTraits, now: number, held = 0): CallDeadline {
  const stepMs = limits.stepMs ?? DEFAULT_STEP_MS;
  const snapshotMs = limits.snapshotMs ?? DEFAULT_SNAPSHOT_MS;
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
    case "createState":
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
      return fixed(Math.max(snapshotMs, stepMs * steps(request.tokens.length)));
    case "loadSnapshot":
    case "appendSnapshot":
      return fixed(snapshotMs);
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
