// The chat provider's context size (shell/lm/provider-context.ts): the model's own training
// context where memory holds the pool's caches of that size, less where it does not (never below
// the panels' size), a set number as set; the KV geometry it plans with, read from GGUF metadata;
// the refusal of a request over it; one plan per model and settings, whatever memory does after.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { engineCapacity } from "../../src/extension/core/engine-options";
import type { GgufValue } from "../../src/extension/models/gguf-header";
import { kvGeometryOf, type KvGeometry } from "../../src/extension/models/kv-geometry";
import { checkedAutoOrCount, type SettingProblem } from "../../src/extension/shell/settings/setting-schema";
import {
  capacityRefusal,
  computeBytes,
  HEADROOM_BYTES,
  planProviderContext,
  ProviderContexts,
  tokensFitting,
  type MemoryFigures,
  type ProviderContextInput,
} from "../../src/extension/shell/lm/provider-context";

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

/** Qwen2.5-Coder-1.5B-Instruct's header (the bench model's keys, as llama.cpp writes them). */
const QWEN_15B: ReadonlyMap<string, GgufValue> = new Map<string, GgufValue>([
  ["general.architecture", "qwen2"],
  ["qwen2.block_count", 28],
  ["qwen2.context_length", 32768],
  ["qwen2.embedding_length", 1536],
  ["qwen2.attention.head_count", 12],
  ["qwen2.attention.head_count_kv", 2],
  ["tokenizer.ggml.tokens", { arrayOf: 8, length: 151936 }],
]);

const qwenKv = kvGeometryOf(QWEN_15B)!;
const qwen = (over: Partial<ProviderContextInput> = {}): ProviderContextInput => ({
  setting: "auto",
  panelContextSize: 4096,
  remote: false,
  trainContext: 32768,
  kv: qwenKv,
  weightsBytes: 1.1 * GiB,
  sessions: 4,
  ...over,
});
const roomy: MemoryFigures = { availableBytes: 22 * GiB, totalBytes: 24 * GiB };

describe("KV geometry from a GGUF header", () => {
  it("Qwen2.5-Coder-1.5B: 28 layers × 2 KV heads × (128 + 128) × 2 bytes = 28,672 bytes a token", () => {
    assert.deepEqual(qwenKv, { layers: 28, kvHeads: 2, keyLength: 128, valueLength: 128, bytesPerToken: 28_672, vocabSize: 151_936 });
  });

  it("explicit key and value lengths win over embedding / heads; no head_count_kv means one per head", () => {
    const kv = kvGeometryOf(
      new Map<string, GgufValue>([
        ["general.architecture", "x"],
        ["x.block_count", 2],
        ["x.attention.head_count", 4],
        ["x.embedding_length", 256],
        ["x.attention.key_length", 96],
        ["x.attention.value_length", 80],
      ]),
    );
    assert.deepEqual(kv, { layers: 2, kvHeads: 4, keyLength: 96, valueLength: 80, bytesPerToken: 2 * 4 * (96 + 80) * 2 });
  });

  it("gives no figure where the header does not say (no architecture, no heads, per-layer head arrays)", () => {
    assert.equal(kvGeometryOf(new Map()), undefined);
    const withoutHeads = new Map(QWEN_15B);
    withoutHeads.delete("qwen2.attention.head_count");
    assert.equal(kvGeometryOf(withoutHeads), undefined);
    const perLayer = new Map(QWEN_15B).set("qwen2.attention.head_count_kv", { arrayOf: 4, length: 28 });
    assert.equal(kvGeometryOf(perLayer), undefined);
  });
});

describe("the provider's context plan", () => {
  it("takes the model's own context when memory holds every session's cache of it", () => {
    const plan = planProviderContext(qwen(), roomy);
    assert.deepEqual([plan.contextSize, plan.capacity, plan.limit], [32768, 32768, "model"]);
    assert.equal(plan.why, "the model's own context");
  });

  it("caps by memory: each of the sessions gets an equal share, in whole 256-token steps", () => {
    // 6 GiB available: 6 − 1.1 weights − 1 headroom = 3.9 GiB for 4 sessions.
    const memory: MemoryFigures = { availableBytes: 6 * GiB, totalBytes: 8 * GiB };
    const plan = planProviderContext(qwen(), memory);
    const perSession = (6 * GiB - 1.1 * GiB - HEADROOM_BYTES) / 4 - computeBytes(qwenKv);
    assert.equal(plan.limit, "memory");
    assert.equal(plan.contextSize, Math.floor(perSession / 28_672 / 256) * 256);
    assert.equal(plan.contextSize % 256, 0);
    assert.ok(plan.contextSize > 16_384 && plan.contextSize < 32_768, `${plan.contextSize}`);
    // What was planned fits: the sessions' caches and compute buffers, the weights and the headroom.
    assert.ok(4 * (plan.contextSize * 28_672 + computeBytes(qwenKv)) + 1.1 * GiB + HEADROOM_BYTES <= memory.availableBytes);
    assert.match(plan.why, /capped by memory from the model's 32,768: 4 sessions × 28,672 bytes per token \(6,144 MiB available/);
    // One session may have the model's whole context in the same memory.
    assert.equal(planProviderContext(qwen({ sessions: 1 }), memory).limit, "model");
  });

  it("never plans on more than half the machine's memory, however much is free", () => {
    const fits = tokensFitting({ kv: qwenKv, weightsBytes: 0, sessions: 1 }, { availableBytes: 100 * GiB, totalBytes: 2 * GiB });
    assert.equal(fits, Math.floor((1 * GiB - computeBytes(qwenKv)) / 28_672 / 256) * 256);
  });

  it("never goes below the panels' size (what the provider used before); memory too small says so", () => {
    const tight: MemoryFigures = { availableBytes: 2.5 * GiB, totalBytes: 4 * GiB };
    const plan = planProviderContext(qwen(), tight);
    assert.deepEqual([plan.contextSize, plan.limit], [4096, "panel"]);
    assert.match(plan.why, /^statefulChat\.contextSize: memory holds no more/);
    assert.equal(tokensFitting({ kv: qwenKv, weightsBytes: 8 * GiB, sessions: 4 }, tight), 0, "nothing left after the weights");
  });

  it("a set number is used as set, within the model's own context", () => {
    assert.deepEqual(planProviderContext(qwen({ setting: 20_000 }), { availableBytes: 1, totalBytes: 1 }), {
      contextSize: 20_000,
      capacity: 20_224,
      limit: "setting",
      why: "statefulChat.chatProvider.contextSize",
    });
    const over = planProviderContext(qwen({ setting: 65_536 }), roomy);
    assert.equal(over.capacity, 32_768);
    assert.match(over.why, /the model's own context; statefulChat.chatProvider.contextSize asks 65,536/);
  });

  it("without a context length or KV size in the header, or on a server, the panels' size", () => {
    assert.equal(planProviderContext(qwen({ kv: undefined }), roomy).contextSize, 4096);
    assert.equal(planProviderContext(qwen({ trainContext: undefined }), roomy).capacity, 4096);
    const remote = planProviderContext(qwen({ remote: true }), roomy);
    assert.deepEqual([remote.contextSize, remote.limit], [4096, "panel"]);
  });

  it("predicts the engine's capacity: the training context's cap, then up to a multiple of 256", () => {
    assert.equal(engineCapacity(4096, 8192), 4096);
    assert.equal(engineCapacity(32768, 8192), 8192);
    assert.equal(engineCapacity(5000, undefined), 5120);
    assert.equal(engineCapacity(4096, 2000), 2048);
  });

  it("is planned once per model and settings: later changes in free memory do not move it", () => {
    let available = 22 * GiB;
    const plans = new ProviderContexts(() => ({ availableBytes: available, totalBytes: 24 * GiB }));
    const first = plans.of(qwen());
    available = 2.5 * GiB; // the engine loaded, other programs started
    assert.equal(plans.of(qwen()), first);
    const fewer = plans.of(qwen({ sessions: 2 }));
    assert.notEqual(fewer, first, "another session count is another plan");
    assert.equal(fewer.limit, "panel", "made with the memory there is now");
  });
});

describe("a request over the provider's context", () => {
  it("is refused with both sizes, what decided the capacity and what to change", () => {
    const memory = planProviderContext(qwen(), { availableBytes: 6 * GiB, totalBytes: 8 * GiB });
    const text = capacityRefusal(35_000, "qwen2.5-coder-1.5b", memory, 32768);
    assert.match(text, /^This request is 35,000 tokens, and qwen2.5-coder-1.5b holds [\d,]+ \(capped by memory/);
    assert.match(text, /lower statefulChat\.chatProvider\.sessions/);
    const own = capacityRefusal(40_000, "m", planProviderContext(qwen(), roomy), 32768);
    assert.match(own, /holds 32,768 \(the model's own context\)\. Pick a model with a larger context, or ask @stateful/);
    const set = capacityRefusal(9_000, "m", planProviderContext(qwen({ setting: 8192 }), roomy), 32768);
    assert.match(set, /Raise statefulChat\.chatProvider\.contextSize/);
  });
});

describe("statefulChat.chatProvider.contextSize", () => {
  it("is auto, or a whole number of at least 256 (digits in a string too)", () => {
    const problems: SettingProblem[] = [];
    assert.equal(checkedAutoOrCount("chatProvider.contextSize", undefined, problems), "auto");
    assert.equal(checkedAutoOrCount("chatProvider.contextSize", "auto", problems), "auto");
    assert.equal(checkedAutoOrCount("chatProvider.contextSize", 16384, problems), 16384);
    assert.equal(checkedAutoOrCount("chatProvider.contextSize", " 8192 ", problems), 8192);
    assert.deepEqual(problems, []);
  });

  it("corrects anything else, and says so naming the setting", () => {
    const problems: SettingProblem[] = [];
    assert.equal(checkedAutoOrCount("chatProvider.contextSize", 100, problems), 256);
    assert.equal(checkedAutoOrCount("chatProvider.contextSize", 1000.4, problems), 1000);
    assert.equal(checkedAutoOrCount("chatProvider.contextSize", "large", problems), "auto");
    assert.equal(checkedAutoOrCount("chatProvider.contextSize", true, problems), "auto");
    assert.deepEqual(
      problems.map((p) => [p.setting, p.used]),
      [
        ["statefulChat.chatProvider.contextSize", 256],
        ["statefulChat.chatProvider.contextSize", 1000],
        ["statefulChat.chatProvider.contextSize", "auto"],
        ["statefulChat.chatProvider.contextSize", "auto"],
      ],
    );
    assert.match(problems[0].reason, /whole number >= 256/);
  });
});

describe("MiB figures", () => {
  it("compute buffer: a 512-token batch's logits over the vocabulary, plus a margin", () => {
    assert.equal(computeBytes(qwenKv), 151_936 * 512 * 4 + 32 * MiB);
    const unknownVocab: KvGeometry = { ...qwenKv, vocabSize: undefined };
    assert.ok(computeBytes(unknownVocab) >= computeBytes(qwenKv), "an uncounted vocabulary is taken as a large one");
  });
});
