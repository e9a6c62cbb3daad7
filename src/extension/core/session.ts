// A session: one KV state plus the ledger of exactly what it holds. It prefills in
// chunks (so cancel is honoured within one chunk), generates token by token (so stop is
// honoured within one token) and refuses any write past capacity before the backend is
// called. It is not re-entrant; Conversation puts it behind a SessionQueue.

import { throwIfAborted } from "./abort";
import type { KvState, SamplingOptions, Tokenizer } from "./engine";
import { CancelledError, CapacityError, DisposedError } from "./errors";
import { Ledger } from "./ledger";
import { backendReply, type BackendReplyEnd, type BackendReplyPort } from "./backend-reply";
import { cacheMismatch, type CacheCheck } from "./cache-check";
import { loadSnapshotInto, saveSnapshotDelta, saveWholeSnapshot, type SnapshotHolder } from "./session-snapshot";
import type { GenerateOptions, StopReason } from "./generation";

/** A prefill's progress: `done` of `total` tokens evaluated (Session.prefill). */
export type PrefillProgress = (done: number, total: number) => void;

export interface SessionCounters {
  /** Tokens handed to the backend that were not produced by generation. */
  prefilled: number;
  /** Tokens handed to the backend that generation produced. */
  decoded: number;
  /** Speculative decoding: tokens drafted, drafted tokens the target kept. */
  drafted: number;
  accepted: number;
  /** Target forward passes that sampled reply tokens (one per token without speculation). */
  steps: number;
}

export class Session {
  private readonly ledger = new Ledger();
  private disposed = false;
  /** Generated tokens not yet evaluated; counted as decoded rather than prefilled. */
  private pendingGenerated = 0;
  private stateLost = false;
  readonly counters: SessionCounters = { prefilled: 0, decoded: 0, drafted: 0, accepted: 0, steps: 0 };
  lastStopReason: StopReason | undefined;
  /** What the backend's server reported it reused for the last reply (ReplyRun.serverCached), if it did. */
  lastServerCached: number | undefined;

  constructor(
    private readonly state: KvState,
    private readonly tokenizer: Tokenizer,
    private readonly chunkSize = 128,
  ) {}

  get position(): number {
    return this.ledger.length;
  }

  get capacity(): number {
    return this.state.capacity;
  }

  /** Tokens in the ledger (what the cache holds once pending tokens are evaluated). */
  get tokens(): readonly number[] {
    return this.ledger.tokens;
  }

  /** Tokens already computed into the backend state. */
  get evaluated(): number {
    return this.ledger.evaluated;
  }

  /**
   * Append prompt tokens. Whole chunks are evaluated now; the last 1..chunkSize tokens stay
   * pending, so generate() evaluates them and samples the first reply token in one engine
   * call (as llama-server does) instead of two: one decode step less before the first token.
   * On cancel or failure the ledger and the state are rolled back to where this call
   * started, exactly.
   *
   * `onProgress` hears how far the evaluation is: (0, total) before the first chunk, then after
   * each chunk, ending at (total, total). `total` is what this call evaluates: every pending
   * token (a restored or state-lost ledger's too) but the held-back last chunk, which is
   * generate()'s. Nothing to evaluate, no call. It must not throw (it would fail the prefill).
   */
  async prefill(tokens: readonly number[], signal?: AbortSignal, onProgress?: PrefillProgress): Promise<void> {
    this.assertUsable();
    throwIfAborted(signal);
    if (this.position + tokens.length > this.capacity) {
      throw new CapacityError(this.position, tokens.length, this.capacity);
    }
    await this.resyncWithState();
    const start = this.position;
    this.ledger.append(tokens);
    try {
      const pending = this.ledger.pending().length;
      await this.evaluatePending({ keepLast: pending === 0 ? 0 : ((pending - 1) % this.chunkSize) + 1, signal, onProgress });
    } catch (error) {
      await this.rollback(start);
      throw error;
    }
  }

  /**
   * Evaluate every pending token, the chunk prefill() holds back included, so the cache holds
   * the whole ledger and can be saved (a request pool keeps a prompt's stable prefix this way
   * before prefilling the rest). Costs the one decode step the held-back chunk spares.
   * `onProgress` as prefill's. On cancel what was evaluated stays, the rest pending.
   */
  async evaluateAll(signal?: AbortSignal, onProgress?: PrefillProgress): Promise<void> {
    this.assertUsable();
    throwIfAborted(signal);
    await this.resyncWithState();
    await this.evaluatePending({ keepLast: 0, signal, onProgress });
  }

  /**
   * Generate tokens. Each yielded token is in the ledger; when generation ends it is in
   * the state too (the last one is evaluated without sampling), so ledger == cache.
   */
  async *generate(options: GenerateOptions, signal?: AbortSignal): AsyncGenerator<number, StopReason, void> {
    this.assertUsable();
    this.lastStopReason = undefined;
    this.lastServerCached = undefined;
    let produced: number;
    let reason: StopReason = "max_tokens";
    try {
      await this.resyncWithState();
      if (this.ledger.pending().length === 0) await this.holdBackLastToken();
      // The backend's own loop when it has one; the step loop below finishes what it leaves
      // (e.g. it stopped at a token it takes for the end and the tokenizer does not).
      const inBackend = this.state.generateReply ? yield* this.generateInBackend(options, signal) : undefined;
      produced = inBackend?.produced ?? 0;
      if (inBackend?.reason) reason = inBackend.reason;
      while (!inBackend?.reason && produced < options.maxTokens) {
        if (signal?.aborted) {
          reason = "cancelled";
          break;
        }
        if (this.position + 1 > this.capacity) {
          reason = "capacity";
          break;
        }
        // A cancel is seen at the top of the loop, after a whole step; the signal here only
        // ends a wait for the backend (an engine process restarting, a busy server).
        const next = await this.evaluatePending({ keepLast: 0, sample: options.sampling, waitSignal: signal });
        if (next === undefined) throw new Error("backend returned no sampled token");
        this.counters.steps++;
        if (this.tokenizer.isEndOfGeneration(next)) {
          reason = "eog";
          break;
        }
        this.ledger.append([next]);
        this.pendingGenerated = 1;
        produced++;
        yield next;
      }
      // Put the last generated token into the state now, so the state is complete.
      if (this.ledger.pending().length > 0 && reason !== "eog") {
        await this.evaluatePending({ keepLast: 0, waitSignal: signal });
      }
    } catch (error) {
      if (error instanceof CancelledError) reason = "cancelled";
      else throw error;
    } finally {
      this.lastStopReason = reason;
    }
    return reason;
  }

  /** generate() through KvState.generateReply (backend-reply.ts). */
  private generateInBackend(options: GenerateOptions, signal?: AbortSignal): AsyncGenerator<number, BackendReplyEnd, void> {
    return backendReply(this.replyPort, options, signal);
  }

  /** What backendReply() may do to this session: no more than generate() itself does. */
  private readonly replyPort: BackendReplyPort = {
    ledger: this.ledger,
    isEndOfGeneration: (token) => this.tokenizer.isEndOfGeneration(token),
    room: () => this.capacity - this.position,
    pendingGenerated: () => this.pendingGenerated,
    prefillAllButLastChunk: async (signal) => {
      const pending = this.ledger.pending().length;
      await this.evaluatePending({ keepLast: ((pending - 1) % this.chunkSize) + 1, signal });
    },
    start: (input, options, onToken) => this.state.generateReply!(input, options, onToken),
    adopt: (length, before) => this.adoptBackendLength(length, before.evaluated, before.input, before.generated),
    noteRun: (run, arrived) => {
      this.lastServerCached = run.serverCached?.();
      const speculation = run.speculation?.();
      this.counters.steps += speculation?.steps ?? arrived;
      this.counters.drafted += speculation?.drafted ?? 0;
      this.counters.accepted += speculation?.accepted ?? 0;
    },
  };

  /**
   * After generateReply: the cache holds the ledger's evaluated tokens, the input, and the
   * sampled tokens the backend fed back. Erase any it decoded beyond the ledger (sampled
   * before it saw the cancel) and mark the rest evaluated, counted as prefilled (input) or
   * decoded (generated).
   */
  private async adoptBackendLength(length: number, evaluatedBefore: number, inputLength: number, generatedBefore: number): Promise<void> {
    if (length > this.position) await this.state.truncate(this.position);
    const evaluatedNow = Math.min(length, this.position) - evaluatedBefore;
    if (evaluatedNow < inputLength) return; // failed inside the input: resyncWithState() sorts it out
    this.ledger.markEvaluated(evaluatedNow);
    const fromGeneration = Math.min(generatedBefore, inputLength);
    this.counters.prefilled += inputLength - fromGeneration;
    this.counters.decoded += fromGeneration + (evaluatedNow - inputLength);
    this.pendingGenerated = this.ledger.pending().length;
  }

  /** Roll the ledger and the state back to `length` tokens (exact tail erase). */
  async rollback(length: number): Promise<void> {
    if (length >= this.position) return;
    const evaluatedBefore = this.ledger.evaluated;
    this.ledger.truncate(length);
    if (evaluatedBefore > length) {
      try {
        await this.state.truncate(length);
      } catch {
        // The backend could not erase its tail: start a fresh state and re-prefill the
        // ledger lazily on the next call, so the session stays usable.
        await this.freshStateKeepingLedger();
      }
    }
    await this.resyncWithState();
  }

  /**
   * The backend lost what it held (its engine process died and restarted): start a fresh
   * state and re-prefill the whole ledger lazily, so the conversation continues exactly.
   * Returns whether it had to.
   */
  async resyncWithState(): Promise<boolean> {
    if (this.state.length === this.ledger.evaluated) return false;
    await this.freshStateKeepingLedger();
    this.stateLost = this.ledger.length > 0;
    return true;
  }

  /**
   * The backend lost the cache since the last successful prefill (the next prefill
   * re-evaluates the ledger); cleared by acknowledgeStateLost(). Stats report it.
   */
  get stateWasLost(): boolean {
    return this.stateLost;
  }

  acknowledgeStateLost(): void {
    this.stateLost = false;
  }

  /**
   * Rewind to `length` tokens (the chat template re-rendered what follows). Returns how to
   * undo it if what follows fails: the rewound tokens go back as pending tokens.
   */
  async rewind(length: number): Promise<() => Promise<void>> {
    const tail = this.ledger.tokens.slice(length);
    await this.rollback(length);
    return async () => {
      await this.rollback(length);
      this.appendPending(tail);
    };
  }

  /**
   * Put tokens back at the end of the ledger without evaluating them (undoing a rewind that
   * a failed turn made); they are prefilled on the next call.
   */
  appendPending(tokens: readonly number[]): void {
    this.assertUsable();
    if (this.position + tokens.length > this.capacity) throw new CapacityError(this.position, tokens.length, this.capacity);
    this.ledger.append(tokens);
  }

  /** A fresh state and an empty ledger. */
  async reset(): Promise<void> {
    this.assertUsable();
    await this.state.reset();
    this.ledger.clear();
    this.pendingGenerated = 0;
    this.stateLost = false;
  }

  /** A fresh state that keeps the ledger: every token is re-prefilled on the next call. */
  async discardState(): Promise<void> {
    this.assertUsable();
    await this.freshStateKeepingLedger();
  }

  /**
   * The one way to drop the cache but keep the ledger: a fresh state, nothing evaluated, no
   * generated token pending (so the re-prefill counts as prefilled, not decoded).
   */
  private async freshStateKeepingLedger(): Promise<void> {
    await this.state.reset();
    this.ledger.forgetEvaluated();
    this.pendingGenerated = 0;
  }

  /** Start from a given ledger (restored transcript); evaluated lazily on the next call. */
  async restore(tokens: readonly number[]): Promise<void> {
    await this.reset();
    if (tokens.length > this.capacity) throw new CapacityError(0, tokens.length, this.capacity);
    this.ledger.append(tokens);
  }

  /**
   * Write the cache to `path` when it holds the whole ledger (nothing pending); returns its
   * size in bytes, or undefined when the backend cannot or there is nothing to save.
   */
  async saveSnapshot(path: string): Promise<number | undefined> {
    this.assertUsable();
    return saveWholeSnapshot(this.snapshotHolder, path);
  }

  /**
   * Write only the cache's cells from position `from` on (an incremental snapshot after one
   * saved at `from` tokens), when the cache holds the whole ledger and reaches past `from`;
   * undefined when it cannot (nothing new, or the backend has no deltas). Rejects when the
   * backend refuses this model's cache (the caller writes a whole snapshot instead).
   */
  async saveSnapshotDelta(path: string, from: number): Promise<number | undefined> {
    this.assertUsable();
    return saveSnapshotDelta(this.snapshotHolder, path, from);
  }

  /**
   * Adopt the cache saved at `path`, followed by the `deltas` saved after it in order, when
   * together they hold exactly the ledger (restore() first); else keep a fresh state, so the
   * ledger is re-prefilled lazily. Returns whether it was adopted.
   */
  async loadSnapshot(path: string, deltas: readonly string[] = []): Promise<boolean> {
    this.assertUsable();
    const outcome = await loadSnapshotInto(this.snapshotHolder, path, deltas);
    if (outcome === "adopted") this.pendingGenerated = 0;
    if (outcome === "mismatch") await this.freshStateKeepingLedger();
    return outcome === "adopted";
  }

  /** What session-snapshot.ts reads and marks: the state and the ledger, nothing else. */
  private get snapshotHolder(): SnapshotHolder { return { state: this.state, ledger: this.ledger }; }

  /**
   * What the engine says its cache holds against what this session evaluated into it
   * (core/cache-check.ts). Not serialized by itself: Conversation.probeCache queues it.
   */
  async probeCache(): Promise<CacheCheck> {
    this.assertUsable();
    const evaluated = this.ledger.evaluated;
    const resyncPending = this.state.length !== evaluated;
    const probe = await this.state.probeCache?.();
    const mismatch = probe && !resyncPending ? cacheMismatch(probe, evaluated) : undefined;
    return { evaluated, ledger: this.ledger.length, probe, resyncPending, mismatch };
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.state.dispose();
  }

  private async holdBackLastToken(): Promise<void> {
    // Generation samples from the last evaluated token's logits; backends expose them only
    // for tokens evaluated with sampling, so re-evaluate the final token.
    if (this.position === 0) throw new Error("cannot generate from an empty session");
    const keep = this.position - 1;
    await this.state.truncate(keep);
    this.ledger.unevaluateFrom(keep);
  }

  private async evaluatePending(options: {
    /** Tokens at the end to leave pending (not evaluated yet). */
    keepLast: number;
    sample?: SamplingOptions;
    signal?: AbortSignal;
    /** Handed to the backend only (not checked between chunks): it ends a wait, never a computation. */
    waitSignal?: AbortSignal;
    /** Told (done, count) before the first chunk and after each one (see prefill). */
    onProgress?: PrefillProgress;
  }): Promise<number | undefined> {
    const pending = this.ledger.pending();
    const count = pending.length - options.keepLast;
    let next: number | undefined;
    if (count > 0) options.onProgress?.(0, count);
    for (let offset = 0; offset < count; offset += this.chunkSize) {
      throwIfAborted(options.signal);
      const chunk = pending.slice(offset, Math.min(count, offset + this.chunkSize));
      const isLast = offset + chunk.length >= count;
      if (this.state.length + chunk.length > this.capacity) {
        throw new CapacityError(this.state.length, chunk.length, this.capacity);
      }
      next = await this.state.evaluate(chunk, isLast ? options.sample : undefined, options.signal ?? options.waitSignal);
      this.ledger.markEvaluated(chunk.length);
      const fromGeneration = Math.min(this.pendingGenerated, chunk.length);
      this.pendingGenerated -= fromGeneration;
      this.counters.decoded += fromGeneration;
      this.counters.prefilled += chunk.length - fromGeneration;
      options.onProgress?.(offset + chunk.length, count);
    }
    return next;
  }

  private assertUsable(): void {
    if (this.disposed) throw new DisposedError("Session");
  }
}
