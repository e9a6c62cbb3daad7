// What one token of context costs in memory for a GGUF model, from its header alone (no load):
// llama.cpp's KV cache holds, per layer, a key and a value of `head_count_kv` heads each, in
// F16 (2 bytes) unless told otherwise. The chat provider sizes its context with it
// (shell/lm/provider-context.ts). The figure is an upper bound for models that keep less:
// sliding-window layers (Gemma), compressed latent attention (DeepSeek's MLA) and recurrent
// layers (Mamba hybrids) cost less than their head counts say; a pure recurrent model, or a
// header whose head counts vary per layer (arrays), has no figure here.

import type { GgufValue } from "./gguf-header";

export interface KvGeometry {
  readonly layers: number;
  readonly kvHeads: number;
  /** Key and value width per head. */
  readonly keyLength: number;
  readonly valueLength: number;
  /** Bytes of F16 KV cache per token of context, all layers together. */
  readonly bytesPerToken: number;
  /** Tokens in the vocabulary (the output logits of a batch scale with it), when the header lists them. */
  readonly vocabSize?: number;
}

/** llama.cpp's default KV cache type, F16. */
const F16_BYTES = 2;

/** The KV geometry in a GGUF's metadata, or undefined when it does not state one this can use. */
export function kvGeometryOf(metadata: ReadonlyMap<string, GgufValue>): KvGeometry | undefined {
  const architecture = metadata.get("general.architecture");
  if (typeof architecture !== "string") return undefined;
  const count = (key: string): number | undefined => {
    const value = metadata.get(`${architecture}.${key}`);
    return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
  };
  const layers = count("block_count");
  const heads = count("attention.head_count");
  const embedding = count("embedding_length");
  if (layers === undefined || heads === undefined) return undefined;
  // Absent means as many KV heads as query heads (no grouped-query attention), as in llama.cpp.
  const kvHeads = metadata.has(`${architecture}.attention.head_count_kv`) ? count("attention.head_count_kv") : heads;
  const perHead = embedding !== undefined && embedding % heads === 0 ? embedding / heads : undefined;
  const keyLength = count("attention.key_length") ?? perHead;
  const valueLength = count("attention.value_length") ?? perHead;
  if (kvHeads === undefined || keyLength === undefined || valueLength === undefined) return undefined;
  const tokens = metadata.get("tokenizer.ggml.tokens");
  const vocabSize = typeof tokens === "object" && typeof tokens !== "bigint" && tokens.length > 0 ? tokens.length : count("vocab_size");
  return {
    layers,
    kvHeads,
    keyLength,
    valueLength,
    bytesPerToken: layers * kvHeads * (keyLength + valueLength) * F16_BYTES,
    ...(vocabSize !== undefined ? { vocabSize } : {}),
  };
}
