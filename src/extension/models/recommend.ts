// Which model to suggest downloading, by this machine's memory. A model's weights, its KV
// caches and the editor itself must fit in RAM together: Qwen2.5-Coder 7B (Q4_K_M, ~4.7 GB of
// weights, ~6 GB while chatting) where there are 16 GB, 1.5B (~1.1 GB) on an 8 GB machine,
// 0.5B below that. Pure: unit-tested.

import type { CatalogEntry } from "./catalog";

const GiB = 1024 ** 3;

/** From the largest model down: the least total memory (as os.totalmem() reports it) each wants. */
export const MEMORY_TIERS: ReadonlyArray<{ readonly entryId: string; readonly minTotalBytes: number }> = [
  // A "16 GB" machine reports a little less (firmware, integrated graphics): 14 GiB.
  { entryId: "qwen2.5-coder-7b-q4_k_m", minTotalBytes: 14 * GiB },
  // An "8 GB" machine reports ~7.6 GiB.
  { entryId: "qwen2.5-coder-1.5b-q4_k_m", minTotalBytes: 6 * GiB },
  { entryId: "qwen2.5-coder-0.5b-q8_0", minTotalBytes: 0 },
];

export interface Recommendation {
  readonly entry: CatalogEntry;
  /** For the picker: "fits this machine's 24 GB of memory". */
  readonly reason: string;
}

/** The llama.cpp catalog model that fits `totalMemoryBytes`; undefined when the catalog has none of the tiers. */
export function recommendedModel(totalMemoryBytes: number, catalog: readonly CatalogEntry[]): Recommendation | undefined {
  const memory = `${Math.round(totalMemoryBytes / GiB)} GB`;
  for (const tier of MEMORY_TIERS) {
    if (totalMemoryBytes < tier.minTotalBytes) continue;
    const entry = catalog.find((e) => e.id === tier.entryId && e.backend === "llamacpp");
    if (entry) return { entry, reason: `fits this machine's ${memory} of memory` };
  }
  return undefined;
}
