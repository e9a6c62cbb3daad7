// The download Set Up a Model… recommends, by this machine's memory (os.totalmem()).
import assert from "node:assert/strict";
import { it } from "node:test";
import { MODEL_CATALOG } from "../../src/extension/models/catalog";
import { MEMORY_TIERS, recommendedModel } from "../../src/extension/models/recommend";

const GiB = 1024 ** 3;
const pick = (gib: number) => recommendedModel(gib * GiB, MODEL_CATALOG)?.entry.id;

it("7B where there are 16 GB, 1.5B on an 8 GB machine, 0.5B below", () => {
  assert.equal(pick(24), "qwen2.5-coder-7b-q4_k_m");
  assert.equal(pick(15.5), "qwen2.5-coder-7b-q4_k_m", "a 16 GB machine reports a little less");
  assert.equal(pick(7.6), "qwen2.5-coder-1.5b-q4_k_m", "an 8 GB machine");
  assert.equal(pick(12), "qwen2.5-coder-1.5b-q4_k_m");
  assert.equal(pick(4), "qwen2.5-coder-0.5b-q8_0");
  assert.match(recommendedModel(24 * GiB, MODEL_CATALOG)?.reason ?? "", /24 GB/);
});

it("every tier names a llama.cpp model of the catalog, and a missing tier falls to the next", () => {
  for (const tier of MEMORY_TIERS) assert.equal(MODEL_CATALOG.find((e) => e.id === tier.entryId)?.backend, "llamacpp", tier.entryId);
  const without7b = MODEL_CATALOG.filter((e) => e.id !== "qwen2.5-coder-7b-q4_k_m");
  assert.equal(recommendedModel(32 * GiB, without7b)?.entry.id, "qwen2.5-coder-1.5b-q4_k_m");
  assert.equal(recommendedModel(32 * GiB, []), undefined);
});
