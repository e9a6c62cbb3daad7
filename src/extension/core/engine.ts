// The engine/session contract that every backend implements (llama.cpp, Core ML).
// Backends provide the low-level primitive (a KV state that evaluates tokens and can
// sample the next one); prompt rendering, chunking, cancellation and generation loops
// live in the core so both backends behave identically.

import type { ServerStatusListener } from "./server-status";

/** Every backend, the one list (the `auto` choice and its validation build on it: engine-options.ts). */
export const BACKEND_NAMES = ["llamacpp", "coreml", "remote"] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];

export interface SamplingOptions {
  /** 0 means greedy (argmax). */
  readonly temperature: number;
  readonly topP?: number;
  readonly topK?: number;
  readonly seed?: number;
}

export interface Tokenizer {
  /** Encode text; with `specials` the text may contain special tokens such as `<|im_end|>`. */
  encode(text: string, options: { readonly specials: boolean }): number[];
  /** Decode tokens to text (special tokens rendered as their text). May end in U+FFFD when a UTF-8 character is split. */
  decode(tokens: readonly number[]): string;
  /** End-of-generation tokens (EOS, end-of-turn). */
  isEndOfGeneration(token: number): boolean;
  /** Set when the model expects a BOS token that the chat template does not write itself. */
  readonly bos?: { readonly id: number; readonly text: string };
  readonly eosText?: string;
}

export interface EngineInfo {
  readonly backend: BackendName;
  readonly modelPath: string;
  readonly modelName: string;
  /** Maximum tokens one session's state can hold (max_seq_len). */
  readonly capacity: number;
  /** Human-readable details, e.g. compute units or threads. */
  readonly details: string;
  /** Where the model runs (device, layers offloaded), when the backend knows. */
  readonly placement?: EnginePlacement;
}

/** Where a loaded model computes: the CLI's JSON events and Show Session Stats report it. */
export interface EnginePlacement {
  /** `cpu`, or the GPU API its layers run on (`metal`, `cuda`, `vulkan`). */
  readonly compute: string;
  /** The device as its driver names it (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"), or the CPU's model. */
  readonly device: string;
  /** Layers on the device, of `layers` (0 on the CPU). */
  readonly layersOffloaded: number;
  readonly layers: number;
  /** CPU threads of the engine. */
  readonly threads: number;
  /** For people: "Vulkan llvmpipe (LLVM 15.0.6, 256 bits), 31/31 layers", "CPU, 2 threads". */
  readonly summary: string;
}

export interface ReplyOptions {
  readonly sample: SamplingOptions;
  /** Tokens to sample at most, the end-of-generation token included. */
  readonly maxTokens: number;
}

/** What speculative decoding did during one reply (see core/speculation/). */
export interface SpeculationCounts {
  /** Tokens proposed by a drafter and verified by the target. */
  readonly drafted: number;
  /** Drafted tokens the target agreed with (kept). */
  readonly accepted: number;
  /** Target forward passes that produced reply tokens (verify batches and single decodes). */
  readonly steps: number;
}

/** A reply being generated inside the backend (KvState.generateReply). */
export interface ReplyRun {
  /** Resolves to the cache's length once the backend has stopped. */
  readonly done: Promise<number>;
  /**
   * Stop at the next token (the backend may have sampled one more before it sees this), and
   * stop any wait at once (for the first token, a busy server, an engine process restarting):
   * `done` then resolves with what the cache holds, or rejects.
   */
  cancel(): void;
  /** Set by a speculative run once `done` has resolved: what drafting did for this reply. */
  readonly speculation?: () => SpeculationCounts | undefined;
  /**
   * Set by a backend whose cache lives on a server (backends/remote/), once `done` has
   * resolved: the prompt tokens the server itself reports it reused for this reply (its
   * own count, e.g. llama-server's `timings.cache_n`), undefined when it did not say.
   */
  readonly serverCached?: () => number | undefined;
}

/**
 * What a KV cache holds as the engine itself counts it (KvState.probeCache), not as the caller
 * or a wrapper's counter says: the check that the ledger and the cache have not come apart.
 */
export interface CacheProbe {
  /**
   * Tokens the cache holds by the engine's count. llama.cpp: its highest position for the
   * sequence + 1 (`llama_memory_seq_pos_max`; positions, not cells: a cell missing inside the
   * range is not seen here, the logits are what shows it). Core ML: the native session's
   * position (the causal mask's end). A server: its own count for our slot.
   */
  readonly held: number;
  /** The lowest position held, where the engine tracks positions (llama.cpp): 0, or -1 when empty. */
  readonly firstPosition?: number;
  /** Where `held` comes from, for reports (e.g. "llama_memory_seq_pos_min/max"). */
  readonly source: string;
}

/** One loaded model, shared by every session (panel) that uses it. */
export interface Engine {
  readonly info: EngineInfo;
  readonly tokenizer: Tokenizer;
  /** Jinja source of the chat template shipped with the model. */
  readonly chatTemplate: string;
  /** Its states implement KvState.generateReply (known before one is created, for the engine process's proxy). */
  readonly replyLoop?: boolean;
  /**
   * Optional, for an engine whose turns can wait on a server (backends/remote/): this engine as
   * one chat sees it, whose states tell `listener` what their turns wait for (a busy server,
   * queued on it: ServerStatus). The view's dispose() does nothing: the engine's owner disposes it.
   */
  withServerStatus?(listener: ServerStatusListener): Engine;
  createState(): Promise<KvState>;
  dispose(): Promise<void>;
}

/**
 * One KV cache. Not re-entrant: callers (the core's queue) guarantee one call at a time;
 * implementations also refuse overlapping calls with a ConcurrentAccessError.
 */
export interface KvState {
  readonly capacity: number;
  /** Tokens currently held in the cache. */
  readonly length: number;
  /**
   * Append `tokens` to the cache. When `sample` is given, returns the next token sampled
   * from the logits of the last appended token. Must throw CapacityError, before touching
   * the state, when length + tokens.length > capacity. `signal` (a Stop) ends a wait before
   * the computation starts (a busy server, an engine process restarting) with
   * CancelledError and the state untouched; a computation that started runs to its end.
   */
  evaluate(tokens: readonly number[], sample?: SamplingOptions, signal?: AbortSignal): Promise<number | undefined>;
  /**
   * Like evaluate(), but returns the `k` most likely next tokens with their probabilities
   * (softmax of the raw logits). Diagnostics and numerical-equivalence tests use it.
   */
  evaluateTopK?(tokens: readonly number[], k: number): Promise<Array<readonly [token: number, probability: number]>>;
  /**
   * Optional fast path for a reply, run inside the backend without a round trip per token:
   * append `tokens` (at most one prefill chunk), sample a token from the last one's logits,
   * and until an end-of-generation token, `maxTokens` sampled tokens or cancel(), append each
   * sampled token and sample the next. `onToken` sees every sampled token, in order, before
   * `done` resolves. When it stops, the cache holds `tokens` and every sampled token but the
   * last (plus, after a cancel, possibly the ones sampled before the backend saw it: the
   * caller erases what it did not take). `done` resolves to the cache's length. Must throw
   * CapacityError, before touching the state, when length + tokens.length + maxTokens - 1 >
   * capacity.
   */
  generateReply?(tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void): ReplyRun;
  /**
   * Optional, what speculative decoding needs: append `tokens` in one batch and return, for
   * each of them, the token sampled from its logits (so `result[i]` is what the model says
   * follows `tokens[0..i]`). A caller keeps the prefix it agrees with and erases the rest with
   * truncate(). Must throw CapacityError, before touching the state, when length +
   * tokens.length > capacity.
   */
  verify?(tokens: readonly number[], sample: SamplingOptions): Promise<number[]>;
  /** Drop cached tokens from `length` to the end (exact; used to roll back a cancelled prefill). */
  truncate(length: number): Promise<void>;
  /** Discard everything: a fresh state. */
  reset(): Promise<void>;
  /**
   * Optional: write the cache to `path` (a backend-specific file) and return its size in
   * bytes. `tokens` are the tokens it holds (the ledger): a backend whose state does not
   * record them stores them in the file, so loadSnapshot can return them. Callers write to
   * a temporary path and rename it (snapshots are atomic).
   */
  saveSnapshot?(path: string, tokens: readonly number[]): Promise<number>;
  /**
   * Optional: replace the cache with the one saved at `path` and return the tokens it holds.
   * Only for files this backend wrote for the same model and context size (a mismatched
   * state can crash llama.cpp): callers check that before, and the tokens after.
   */
  loadSnapshot?(path: string): Promise<readonly number[]>;
  /**
   * Optional, with appendSnapshot: write only the cells from position `from` on (`tokens` are
   * the ledger's tokens from there, the cache's last ones) and return the file's size. A chat
   * then saves its whole cache once and each turn's new cells after it. Rejects when this
   * model's cache cannot be split by position (sliding-window or recurrent state).
   */
  saveSnapshotDelta?(path: string, from: number, tokens: readonly number[]): Promise<number>;
  /**
   * Optional: add the cells of a file saveSnapshotDelta wrote after the cache's own (it must
   * start where the cache ends) and return the tokens it added. On failure the cache may be
   * empty: callers reset.
   */
  appendSnapshot?(path: string): Promise<readonly number[]>;
  /**
   * Optional (implemented by every backend that can ask its engine): what the cache holds,
   * answered by the engine from its own side (see CacheProbe), never from `length` or the
   * ledger. Undefined when the engine cannot tell right now (a server that has not been sent
   * the latest tokens). Tests, the randomized runs and the soak compare it with the ledger.
   */
  probeCache?(): Promise<CacheProbe | undefined>;
  dispose(): Promise<void>;
}
