// One llama.cpp context sequence as a KvState. Each state has its own context so that
// panels never share KV memory; the context shift is replaced by a strategy that throws,
// so llama.cpp can never silently drop the oldest tokens (invariant 5).

import type { CacheProbe, KvState, ReplyOptions, ReplyRun, SamplingOptions } from "../../core/engine";
import { CapacityError, EngineFailedError } from "../../core/errors";
import { ExclusiveAccess } from "../../core/exclusive-access";
import type {
  ControlledEvaluateIndexOutput,
  ControlledEvaluateInputItem,
  LlamaContext,
  LlamaContextSequence,
  LlamaModel,
  Token,
} from "./node-llama-cpp";
import { replyRunStartingLater } from "../../core/reply-run";
import { setBatchThreads } from "./batch-threads";
import { kvDeltas, type KvDeltas } from "./kv-deltas";
import { kvCachePositions, nativeReplyLoop, nativeVerify, type KvCachePositions, type NativeReplyLoop, type NativeVerify } from "./native-reply-loop";
import type { FlashAttentionChoice } from "./flash-attention";

type GenerateNextOptions = Extract<ControlledEvaluateInputItem, readonly unknown[]>[1]["generateNext"];

export interface LlamaStateOptions {
  readonly contextSize: number;
  /** Threads for single-token decode (and for batches when `batchThreads` is not set or not settable). */
  readonly threads: number;
  /** Threads for batches of more than one token (prompts, verification), where the binary allows (batch-threads.ts). */
  readonly batchThreads?: number;
  readonly batchSize: number;
  /** flash-attention.ts: "auto" (the default) but on a device whose driver crashes in its shader. */
  readonly flashAttention?: FlashAttentionChoice;
}

export class LlamaKvState implements KvState {
  private readonly access = new ExclusiveAccess("llama.cpp state", () => this.disposed, (error) =>
    error instanceof Error && error.name.endsWith("Error") && "code" in error
      ? error
      : new EngineFailedError(`llama.cpp: ${error instanceof Error ? error.message : String(error)}`, { cause: error }),
  );
  private disposed = false;
  private replyInFlight: { readonly done: Promise<unknown>; readonly cancel: () => void } | undefined;

  /** Present when the loaded binary has the native reply loop (our build). */
  readonly generateReply?: (tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void) => ReplyRun;

  private constructor(
    private readonly context: LlamaContext,
    private readonly sequence: LlamaContextSequence,
    private readonly onDispose: () => void,
    replyLoop: NativeReplyLoop | undefined,
    private readonly verifyInOneCall: NativeVerify | undefined,
    private readonly positions: KvCachePositions | undefined,
    deltas: KvDeltas | undefined,
    /** Batches run on their own thread count (LlamaStateOptions.batchThreads was applied). */
    readonly batchThreadsApplied: boolean,
  ) {
    if (replyLoop) this.generateReply = (tokens, options, onToken) => this.runReply(replyLoop, tokens, options, onToken);
    if (deltas) {
      this.saveSnapshotDelta = (path, from, tokens) => this.exclusive(() => deltas.save(path, from, tokens));
      this.appendSnapshot = (path) => this.exclusive(() => deltas.append(path));
    }
  }

  /** Present when the loaded binary writes and appends KV deltas (our build; see KvState). */
  readonly saveSnapshotDelta?: (path: string, from: number, tokens: readonly number[]) => Promise<number>;
  readonly appendSnapshot?: (path: string) => Promise<readonly number[]>;

  /** `onDispose` lets the engine forget the state once it is disposed. */
  static async create(model: LlamaModel, options: LlamaStateOptions, onDispose: () => void): Promise<LlamaKvState> {
    const context = await model.createContext({
      contextSize: options.contextSize,
      threads: options.threads,
      batchSize: options.batchSize,
      sequences: 1,
      // Flash attention stays on (llama.cpp's "auto" on a CPU): it attends one query row at a
      // time with the same kernel whether a token comes in a prefill batch or alone, so a
      // conversation re-prefilled from its ledger answers as its cache does. Off, batches take
      // other matrix kernels, and greedy replies after a re-prefill diverged from the cached
      // ones without a near-tie (engine-crash and template tests). Off also decodes faster
      // on this 2-core Xeon at long contexts (2,261 cached tokens: 40-46 tok/s vs 19), a
      // trade we do not take against invariant 1. (Off only where flash-attention.ts says.)
      flashAttention: options.flashAttention ?? "auto",
    });
    const sequence = context.getSequence({
      contextShift: {
        strategy: () => {
          throw new EngineFailedError("llama.cpp context is full; refusing to shift it");
        },
      },
    });
    const batchThreadsApplied = options.batchThreads !== undefined && setBatchThreads(context, options.batchThreads);
    return new LlamaKvState(
      context,
      sequence,
      onDispose,
      nativeReplyLoop(model, context, sequence),
      nativeVerify(model, context, sequence),
      kvCachePositions(context, sequence),
      kvDeltas(context, sequence),
      batchThreadsApplied,
    );
  }

  get capacity(): number {
    return this.sequence.contextSize;
  }

  get length(): number {
    return this.sequence.nextTokenIndex;
  }

  evaluate(tokens: readonly number[], sample?: SamplingOptions): Promise<number | undefined> {
    return this.exclusive(async () => {
      if (tokens.length === 0) return undefined;
      const generateNext = sample && {
        token: true,
        options: { temperature: sample.temperature, topP: sample.topP, topK: sample.topK, seed: sample.seed },
      };
      const output = await this.evaluateWithLast(tokens, generateNext);
      if (!sample) return undefined;
      const next = output?.next.token;
      if (next === undefined || next === null) throw new EngineFailedError("llama.cpp sampled no token");
      return next;
    });
  }

  /**
   * One batch; every position sampled with the same options (speculative verification). Our
   * build does it in one native call; elsewhere (the prebuilt binaries: macOS with Metal,
   * Windows) node-llama-cpp's public controlledEvaluate, one sample call per position.
   */
  verify(tokens: readonly number[], sample: SamplingOptions): Promise<number[]> {
    return this.exclusive(async () => {
      if (tokens.length === 0) return [];
      if (this.length + tokens.length > this.capacity) throw new CapacityError(this.length, tokens.length, this.capacity);
      if (this.verifyInOneCall) return await this.verifyInOneCall(tokens, sample);
      const generateNext = { token: true, options: { temperature: sample.temperature, topP: sample.topP, topK: sample.topK, seed: sample.seed } };
      const items: ControlledEvaluateInputItem[] = (tokens as Token[]).map((token) => [token, { generateNext }]);
      const output = await this.sequence.controlledEvaluate(items);
      return tokens.map((_, i) => {
        const next = output[i]?.next.token;
        if (next === undefined || next === null) throw new EngineFailedError("llama.cpp sampled no token in a verify batch");
        return next;
      });
    });
  }

  evaluateTopK(tokens: readonly number[], k: number): Promise<Array<readonly [number, number]>> {
    return this.exclusive(async () => {
      if (tokens.length === 0) throw new EngineFailedError("evaluateTopK needs at least one token");
      const probabilities = (await this.evaluateWithLast(tokens, { probabilities: true }))?.next.probabilities;
      if (!probabilities) throw new EngineFailedError("llama.cpp returned no probabilities");
      const top: Array<readonly [number, number]> = [];
      for (const [token, probability] of probabilities) {
        top.push([token, probability]);
        if (top.length >= k) break;
      }
      return top;
    });
  }

  /** Appends `tokens` (capacity-checked first); `generateNext` applies to the last one only. */
  private async evaluateWithLast(
    tokens: readonly number[],
    generateNext: GenerateNextOptions | undefined,
  ): Promise<ControlledEvaluateIndexOutput | undefined> {
    if (this.length + tokens.length > this.capacity) {
      throw new CapacityError(this.length, tokens.length, this.capacity);
    }
    const input = tokens as Token[];
    const last = input.length - 1;
    const items: ControlledEvaluateInputItem[] = input.slice(0, last);
    items.push(generateNext ? [input[last], { generateNext }] : input[last]);
    return (await this.sequence.controlledEvaluate(items))[last];
  }

  private runReply(loop: NativeReplyLoop, tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void): ReplyRun {
    const reply = replyRunStartingLater((begin) =>
      this.exclusive(async () => {
        const writes = tokens.length + options.maxTokens - 1;
        if (tokens.length === 0 || options.maxTokens < 1) throw new EngineFailedError("generateReply needs input tokens and maxTokens >= 1");
        if (this.length + writes > this.capacity) throw new CapacityError(this.length, writes, this.capacity);
        return await begin(loop.run(tokens, options, onToken)).done;
      }),
    );
    this.replyInFlight = { done: reply.done.catch(() => undefined), cancel: reply.cancel };
    return reply;
  }

  truncate(length: number): Promise<void> {
    return this.exclusive(async () => {
      const end = this.sequence.nextTokenIndex;
      if (length >= end) return;
      await this.sequence.eraseContextTokenRanges([{ start: length, end }]);
    });
  }

  reset(): Promise<void> {
    return this.exclusive(() => this.sequence.clearHistory());
  }

  /** KV snapshot: the sequence's state file, which records its tokens itself. */
  saveSnapshot(path: string): Promise<number> {
    return this.exclusive(async () => (await this.sequence.saveStateToFile(path)).fileSize);
  }

  /** The caller checked that `path` was written for this model and context size (see KvState). */
  loadSnapshot(path: string): Promise<readonly number[]> {
    return this.exclusive(async () => {
      await this.sequence.loadStateFromFile(path, { acceptRisk: true });
      return [...this.sequence.contextTokens];
    });
  }

  /**
   * llama.cpp's own positions for this sequence (llama_memory_seq_pos_min/max), not
   * node-llama-cpp's counter (`length`): a chat cache from position 0 holds max + 1 tokens.
   */
  probeCache(): Promise<CacheProbe | undefined> {
    return this.exclusive(async () => {
      if (!this.positions) return undefined;
      const { min, max } = this.positions();
      return { held: max + 1, firstPosition: min, source: "llama_memory_seq_pos_min/max" };
    });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    // The native loop uses the context until it stops: stop it before freeing the context.
    const reply = this.replyInFlight;
    if (reply) {
      reply.cancel();
      await reply.done;
    }
    this.onDispose();
    await this.sequence.dispose();
    await this.context.dispose();
  }

  private exclusive<T>(operation: () => Promise<T>): Promise<T> {
    return this.access.run(operation);
  }
}
