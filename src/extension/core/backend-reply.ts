// Session.generate() through KvState.generateReply: the backend decodes and samples without a
// round trip per token, so the model never waits for this side. Tokens are yielded as they
// arrive; a stop (cancel, the consumer returning early) cancels the run, and whatever the
// backend decoded beyond what was yielded is erased, so ledger == cache as in the step loop.
// A Stop is heard while waiting for a token too (a busy server, a stalled stream, an engine
// process restarting): the run is cancelled at once, not after a token that may never come.

import { throwIfAborted } from "./abort";
import type { ReplyOptions, ReplyRun } from "./engine";
import type { Ledger } from "./ledger";
import type { GenerateOptions, StopReason } from "./generation";

/** What the reply loop may do to its session (Session.replyPort). */
export interface BackendReplyPort {
  readonly ledger: Ledger;
  isEndOfGeneration(token: number): boolean;
  /** Tokens the state can still take. */
  room(): number;
  /** Generated tokens among the pending ones (they count as decoded once evaluated). */
  pendingGenerated(): number;
  /** Evaluates all but the last chunk of what is pending, as a prefill (cancel within a chunk). */
  prefillAllButLastChunk(signal?: AbortSignal): Promise<void>;
  start(input: readonly number[], options: ReplyOptions, onToken: (token: number) => void): ReplyRun;
  /** The backend stopped with `length` tokens cached: erase what it decoded past the ledger, count the rest. */
  adopt(length: number, before: { readonly evaluated: number; readonly input: number; readonly generated: number }): Promise<void>;
  /** What the finished run reports: its model steps and drafts, the server's reuse. */
  noteRun(run: ReplyRun, arrivedTokens: number): void;
}

export interface BackendReplyEnd {
  readonly produced: number;
  /** Undefined when the backend stopped on a token the tokenizer does not end on: the step loop goes on. */
  readonly reason?: StopReason;
}

export async function* backendReply(port: BackendReplyPort, options: GenerateOptions, signal?: AbortSignal): AsyncGenerator<number, BackendReplyEnd, void> {
  await port.prefillAllButLastChunk(signal);
  throwIfAborted(signal);
  const input = port.ledger.pending();
  const room = port.room();
  const maxTokens = Math.min(options.maxTokens, room);
  if (maxTokens <= 0) return { produced: 0, reason: options.maxTokens <= 0 ? "max_tokens" : "capacity" };

  const arrived: number[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  const run = port.start(input, { sample: options.sampling, maxTokens }, (token) => {
    arrived.push(token);
    wake?.();
  });
  const done = run.done.finally(() => {
    finished = true;
    wake?.();
  });
  done.catch(() => undefined); // awaited below; this keeps an early failure from going unhandled
  const onAbort = () => {
    run.cancel();
    wake?.();
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const before = { evaluated: port.ledger.evaluated, input: input.length, generated: port.pendingGenerated() };
  let produced = 0;
  let reason: StopReason | undefined;
  let completed = false;
  try {
    for (let next = 0; ; next++) {
      while (next >= arrived.length && !finished && !signal?.aborted) await new Promise<void>((resolve) => (wake = resolve));
      // A Stop: tokens that arrived since are not taken (the backend's cache is cut back to the ledger).
      if (signal?.aborted) {
        reason = "cancelled";
        break;
      }
      if (next >= arrived.length) break;
      const token = arrived[next];
      if (port.isEndOfGeneration(token)) {
        reason = "eog";
        break;
      }
      port.ledger.append([token]);
      produced++;
      yield token;
    }
    completed = true;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    run.cancel();
    let length: number | undefined;
    try {
      length = await done;
    } catch (error) {
      // The state is whatever the backend left: the next call resyncs it with the ledger.
      // Reported unless the consumer already stopped listening.
      // eslint-disable-next-line no-unsafe-finally -- the backend's failure is this generator's, once it completed
      if (completed) throw error;
    }
    if (length !== undefined) await port.adopt(length, before);
    port.noteRun(run, arrived.length);
  }
  if (!reason && produced >= options.maxTokens) reason = "max_tokens";
  else if (!reason && produced >= room) reason = "capacity";
  return { produced, reason };
}
