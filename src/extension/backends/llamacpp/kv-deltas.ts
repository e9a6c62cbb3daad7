// Incremental KV snapshots through our llama.cpp build (src/tools/llama-build/patches/
// llama-kv-state-range.patch and addon-kv-delta.patch): a delta file holds a sequence's cells
// from a position on, and appending it restores them after the sequence's own. A chat then
// writes its whole cache once and each turn's new cells after that, instead of the whole cache
// every turn (about 700 MB per turn for a 32k conversation with the default model).
// node-llama-cpp has no API for it, so like native-reply-loop.ts this touches its internals
// (the sequence's id and token bookkeeping); without the patched binary `kvDeltas` is undefined
// and snapshots stay whole files.

import type { LlamaContext, LlamaContextSequence } from "./node-llama-cpp";

interface AddonKvDeltas {
  saveSequenceStateDeltaToFile(path: string, sequenceId: number, fromPosition: number, tokens: Uint32Array): Promise<number>;
  /** Rejects when the file is not a delta of this build, does not start where the sequence ends, or the model's cache is not one (the sequence may then be empty). */
  appendSequenceStateFromFile(path: string, sequenceId: number): Promise<Uint32Array>;
}

interface ContextInternals {
  readonly _ctx: Partial<AddonKvDeltas> & {
    /** node-llama-cpp's own: llama_memory_seq_rm of the whole sequence. */
    disposeSequence?(sequenceId: number): void;
  };
}
interface SequenceInternals {
  readonly _sequenceId: number;
  _nextTokenIndex: number;
  _contextTokens: number[];
}

export interface KvDeltas {
  /** Write the cells at positions from `from` on (holding `tokens`, the sequence's last tokens); resolves to the file's size. */
  save(path: string, from: number, tokens: readonly number[]): Promise<number>;
  /** Append a delta's cells after the sequence's own; resolves to the tokens it added. */
  append(path: string): Promise<readonly number[]>;
}

export function kvDeltas(context: LlamaContext, sequence: LlamaContextSequence): KvDeltas | undefined {
  const addon = (context as unknown as ContextInternals)._ctx;
  if (typeof addon?.saveSequenceStateDeltaToFile !== "function" || typeof addon.appendSequenceStateFromFile !== "function") return undefined;
  const patched = addon as AddonKvDeltas;
  const seq = sequence as unknown as SequenceInternals;
  return {
    save: (path, from, tokens) => patched.saveSequenceStateDeltaToFile(path, seq._sequenceId, from, Uint32Array.from(tokens)),
    async append(path) {
      try {
        const added = Array.from(await patched.appendSequenceStateFromFile(path, seq._sequenceId));
        seq._contextTokens = seq._contextTokens.concat(added);
        seq._nextTokenIndex += added.length;
        return added;
      } catch (error) {
        // A refused file leaves the sequence as it was, a failed restore inside llama.cpp leaves
        // it empty: either way it is emptied, llama.cpp's cells and node-llama-cpp's bookkeeping
        // alike, so the caller's reset and re-prefill start from nothing.
        try {
          addon.disposeSequence?.(seq._sequenceId);
        } catch {
          // Already empty.
        }
        seq._contextTokens = [];
        seq._nextTokenIndex = 0;
        throw error;
      }
    },
  };
}
