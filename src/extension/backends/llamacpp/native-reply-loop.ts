// The reply loop of our llama.cpp build (src/tools/llama-build/patches/addon-generate.patch): one
// native worker decodes, samples and feeds each sampled token back, streaming tokens to JS,
// instead of two async hops and a JS turn per token while the model waits. node-llama-cpp
// has no public API for it, so this file is the one place that touches its internals (the
// sequence's id and token bookkeeping, the native sampler, the KV cache's positions); the
// version is pinned, and without the patched binary (the prebuilt one, an older build)
// `nativeReplyLoop` is undefined and the backend samples token by token as before.

import type { ReplyOptions, ReplyRun } from "../../core/engine";
import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel } from "./node-llama-cpp";

interface NativeSampler {
  applyConfig(config: Record<string, unknown>): void;
  dispose(): void;
}

interface GenerateResult {
  readonly tokens: Uint32Array;
  readonly decoded: number;
}

interface PatchedAddonContext {
  generateTokens(
    sequenceId: number,
    firstPosition: number,
    tokens: Uint32Array,
    sampler: NativeSampler,
    maxTokens: number,
    onToken: (token: number) => void,
  ): Promise<GenerateResult>;
  cancelGeneration(): void;
  /** addon-verify.patch: one batch decoded, every position sampled (speculative verification). */
  verifyTokens?(sequenceId: number, firstPosition: number, tokens: Uint32Array, sampler: NativeSampler): Promise<Uint32Array>;
}

/**
 * node-llama-cpp's own addon (prebuilt and ours): llama_memory_seq_pos_min / _max of a
 * sequence, straight from llama.cpp's KV cells (-1 when the sequence holds none).
 */
interface AddonKvPositions {
  getSequenceKvCacheMinPosition(sequenceId: number): number;
  getSequenceKvCacheMaxPosition(sequenceId: number): number;
}

/** What node-llama-cpp 3.21 keeps on its objects (internal, not typed by the package). */
interface ContextInternals {
  readonly _ctx: Partial<PatchedAddonContext & AddonKvPositions>;
}
interface SequenceInternals {
  readonly _sequenceId: number;
  _nextTokenIndex: number;
  _contextTokens: number[];
  _resolveSamplerConfig(options: Record<string, unknown>): Record<string, unknown>;
}
interface ModelInternals {
  readonly _model: unknown;
  readonly _llama: { readonly _bindings: { readonly AddonSampler: new (model: unknown) => NativeSampler } };
}

/** Whether the loaded binary has the reply loop (checked on the addon's class, before any context exists). */
export function hasNativeReplyLoop(llama: Llama): boolean {
  const bindings = (llama as unknown as { _bindings?: { AddonContext?: { prototype?: Partial<PatchedAddonContext> } } })._bindings;
  return typeof bindings?.AddonContext?.prototype?.generateTokens === "function";
}

export interface NativeReplyLoop {
  /** See KvState.generateReply; the caller checks capacity and holds the state exclusively. */
  run(tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void): ReplyRun;
}

/** The lowest and highest position llama.cpp's KV cache holds for a sequence (-1, -1 when empty). */
export type KvCachePositions = () => { readonly min: number; readonly max: number };

/**
 * Asks llama.cpp itself, not node-llama-cpp's token bookkeeping (`nextTokenIndex`, which is
 * what KvState.length reports) and not our ledger: the ledger == cache check's other side.
 * Undefined on an addon without these methods (none known for 3.21).
 */
export function kvCachePositions(context: LlamaContext, sequence: LlamaContextSequence): KvCachePositions | undefined {
  const addon = (context as unknown as ContextInternals)._ctx;
  if (typeof addon?.getSequenceKvCacheMinPosition !== "function" || typeof addon.getSequenceKvCacheMaxPosition !== "function") return undefined;
  const positions = addon as AddonKvPositions;
  const id = (sequence as unknown as SequenceInternals)._sequenceId;
  return () => ({ min: positions.getSequenceKvCacheMinPosition(id), max: positions.getSequenceKvCacheMaxPosition(id) });
}

export type NativeVerify = (tokens: readonly number[], sample: ReplyOptions["sample"]) => Promise<number[]>;

/** Verification in one native call (our build with addon-verify.patch); the caller checks capacity and holds the state. */
export function nativeVerify(model: LlamaModel, context: LlamaContext, sequence: LlamaContextSequence): NativeVerify | undefined {
  const addon = (context as unknown as ContextInternals)._ctx;
  if (typeof addon?.verifyTokens !== "function") return undefined;
  const verifyTokens = addon.verifyTokens.bind(addon);
  const seq = sequence as unknown as SequenceInternals;
  const internals = model as unknown as ModelInternals;
  return async (tokens, sample) => {
    const start = seq._nextTokenIndex;
    const sampler = new internals._llama._bindings.AddonSampler(internals._model);
    try {
      sampler.applyConfig(seq._resolveSamplerConfig({ temperature: sample.temperature, topP: sample.topP, topK: sample.topK, seed: sample.seed }));
      const sampled = await verifyTokens(seq._sequenceId, start, Uint32Array.from(tokens), sampler);
      // The whole batch is in the cache now: record it, so the sequence's length stays true.
      seq._nextTokenIndex = start + tokens.length;
      seq._contextTokens = seq._contextTokens.concat(tokens);
      return Array.from(sampled);
    } finally {
      sampler.dispose();
    }
  };
}

export function nativeReplyLoop(model: LlamaModel, context: LlamaContext, sequence: LlamaContextSequence): NativeReplyLoop | undefined {
  const addon = (context as unknown as ContextInternals)._ctx;
  if (typeof addon?.generateTokens !== "function" || typeof addon.cancelGeneration !== "function") return undefined;
  const patched = addon as PatchedAddonContext;
  const seq = sequence as unknown as SequenceInternals;
  const internals = model as unknown as ModelInternals;
  return {
    run(tokens, options, onToken) {
      const start = seq._nextTokenIndex;
      const sampler = new internals._llama._bindings.AddonSampler(internals._model);
      const received: number[] = [];
      let settled = false;
      const deliver = (token: number) => {
        if (settled) return;
        received.push(token);
        onToken(token);
      };
      // Records what the worker wrote into the cache, so the sequence's length stays true.
      const adopt = (decoded: number, sampled: ArrayLike<number>) => {
        const written = [...tokens, ...Array.from(sampled)].slice(0, decoded);
        seq._nextTokenIndex = start + decoded;
        seq._contextTokens = seq._contextTokens.concat(written);
      };
      const done = (async () => {
        try {
          sampler.applyConfig(seq._resolveSamplerConfig({ temperature: options.sample.temperature, topP: options.sample.topP, topK: options.sample.topK, seed: options.sample.seed }));
          const result = await patched.generateTokens(seq._sequenceId, start, Uint32Array.from(tokens), sampler, options.maxTokens, deliver);
          // The thread-safe token callbacks and the worker's completion arrive by separate
          // queues: deliver any token the result has and the callbacks have not yet brought.
          for (let i = received.length; i < result.tokens.length; i++) deliver(result.tokens[i]);
          settled = true;
          adopt(result.decoded, result.tokens);
          return seq._nextTokenIndex;
        } catch (error) {
          settled = true;
          // Best effort: what the callbacks brought (the caller resyncs with its ledger anyway).
          const decoded = (error as { decoded?: unknown }).decoded;
          if (typeof decoded === "number") adopt(Math.min(decoded, tokens.length + received.length), received);
          throw error;
        } finally {
          sampler.dispose();
        }
      })();
      return { done, cancel: () => patched.cancelGeneration() };
    },
  };
}
