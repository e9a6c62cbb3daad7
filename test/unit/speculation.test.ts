// Speculative decoding on engine test doubles (no model): the n-gram index, the draft
// policy, and the speculative reply loop through the real Session: greedy output identical
// to decoding without speculation, ledger == cache after every reply (also after a stop in
// the middle of a verify batch, a rewind, a reset and near capacity), the same sampling
// distribution, and a draft model whose state follows the target's.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertSameVocabulary } from "../../src/extension/backends/speculation";
import type { KvState, Tokenizer } from "../../src/extension/core/engine";
import { ModelInvalidError } from "../../src/extension/core/errors";
import { Session } from "../../src/extension/core/session";
import { DraftModelDrafter } from "../../src/extension/core/speculation/draft-model-drafter";
import type { Drafter } from "../../src/extension/core/speculation/drafter";
import { DraftPolicy, linearCost, type DraftSource } from "../../src/extension/core/speculation/draft-policy";
import { LiveCost } from "../../src/extension/core/speculation/live-cost";
import { NgramIndex } from "../../src/extension/core/speculation/ngram-index";
import { SpeculativeEngine } from "../../src/extension/core/speculation/speculative-engine";
import { SpeculativeKvState } from "../../src/extension/core/speculation/speculative-state";
import { TokenMirror } from "../../src/extension/core/speculation/token-mirror";
import { interpolate, type VerifyCost } from "../../src/extension/core/speculation/verify-cost";
import { ByteTokenizer, EOS, FakeEngine, HashState } from "../support/fake-engine";
import { LETTERS, MarkovState, transitions } from "../support/markov-engine";

const tokenizer = new ByteTokenizer();
/** A memory-bound model: a batch of 16 costs twice a single decode. */
const CHEAP_BATCHES: VerifyCost = { relative: Array.from({ length: 17 }, (_, k) => 1 + k / 16) };

function speculative(inner: KvState & { verify: NonNullable<KvState["verify"]> }, options: { draftModel?: Drafter; lookup?: boolean; gate?: boolean; cost?: VerifyCost } = {}) {
  const policy = new DraftPolicy(options.cost ?? CHEAP_BATCHES, { maxDraft: 16, gate: options.gate ?? false });
  return new SpeculativeKvState(inner, { lookup: options.lookup ?? true, draftModel: options.draftModel, policy, tokenizer });
}

async function reply(session: Session, maxTokens: number, temperature = 0, signal?: AbortSignal): Promise<number[]> {
  const out: number[] = [];
  for await (const token of session.generate({ maxTokens, sampling: { temperature } }, signal)) out.push(token);
  return out;
}

/** Several turns: a prompt, a reply, a new prompt that repeats earlier text, and so on. */
async function conversation(state: KvState, turns = 5, maxTokens = 40): Promise<{ replies: number[][]; session: Session }> {
  const session = new Session(state, tokenizer, 16);
  const replies: number[][] = [];
  for (let turn = 0; turn < turns; turn++) {
    await session.prefill(tokenizer.encode(`turn ${turn}: abef abef ${turn % 2 ? "hgc" : "dd"}\n`, { specials: false }));
    replies.push(await reply(session, maxTokens));
  }
  return { replies, session };
}

describe("n-gram index and token mirror", () => {
  it("finds what followed the most recent earlier occurrence of the suffix", () => {
    const mirror = new TokenMirror();
    mirror.append([1, 2, 3, 4, 5, 9, 1, 2, 3, 7, 8, 1, 2]);
    assert.deepEqual(mirror.lookup([3], 3), [7, 8, 1], "the later occurrence of 1 2 3 wins");
    assert.deepEqual(mirror.lookup([42], 3), []);
  });

  it("follows appends and tail erases exactly as an index rebuilt from scratch", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const mirror = new TokenMirror();
    for (let step = 0; step < 400; step++) {
      if (random() < 0.3) mirror.truncate(Math.floor(random() * mirror.length));
      else mirror.append(Array.from({ length: 1 + Math.floor(random() * 6) }, () => Math.floor(random() * 5)));
      const fresh = new TokenMirror();
      fresh.append(mirror.tokens);
      const tail = [Math.floor(random() * 5)];
      assert.deepEqual(mirror.lookup(tail, 6), fresh.lookup(tail, 6), `step ${step}`);
    }
  });

  it("an index of n-grams ignores an occurrence that is the suffix itself", () => {
    const index = new NgramIndex(2);
    const tokens: number[] = [];
    for (const t of [5, 6]) {
      tokens.push(t);
      index.added(tokens);
    }
    assert.deepEqual(index.match(tokens, [], 4).tokens, []);
  });

  it("prefers the occurrence whose match reaches furthest back, and says how far", () => {
    const mirror = new TokenMirror();
    // "1 2 3 4 5" then a later, shorter "9 3 4 6": the suffix "1 2 3 4" matches the first one 4 tokens back.
    mirror.append([1, 2, 3, 4, 5, 8, 8, 9, 3, 4, 6, 7, 1, 2, 3]);
    const found = mirror.match([4], 2);
    assert.deepEqual([...found.tokens], [5, 8], "the continuation of the longer match, not of the more recent 3 4");
    assert.equal(found.matchLength, 4);
    assert.equal(mirror.match([42], 2).matchLength, 0);
  });
});

describe("draft policy", () => {
  const long: DraftSource = { kind: "lookup", matchLength: 40 };
  const short: DraftSource = { kind: "lookup", matchLength: 2 };
  /** A CPU where a batch of k costs 1 + k/3 decodes: only a well-accepted draft pays. */
  const MIDDLING: VerifyCost = { relative: Array.from({ length: 17 }, (_, k) => 1 + k / 3) };

  it("in auto mode drafts only where a verify batch is cheap enough to pay", () => {
    assert.equal(new DraftPolicy(linearCost(16), { maxDraft: 16, gate: true }).draftLength(short, 16), 0, "a batch costing its tokens never pays");
    assert.ok(new DraftPolicy(CHEAP_BATCHES, { maxDraft: 16, gate: true }).draftLength(short, 16) >= 1);
    assert.equal(new DraftPolicy(linearCost(16), { maxDraft: 16, gate: false }).draftLength(short, 16), 2, "explicit modes keep drafting, short");
    assert.equal(new DraftPolicy(CHEAP_BATCHES, { maxDraft: 16, gate: true }).draftLength(long, 0), 0, "nothing available, no draft");
    assert.equal(new DraftPolicy(CHEAP_BATCHES, { maxDraft: 16, gate: true }).draftLength(long, 5), 5, "never more than the lookup has");
  });

  it("a long lookup match drafts where a short one does not", () => {
    // A CPU where a batch of k costs 1 + k/2 decodes.
    const policy = new DraftPolicy({ relative: Array.from({ length: 17 }, (_, k) => 1 + k / 2) }, { maxDraft: 16, gate: true });
    assert.equal(policy.draftLength(short, 16), 0);
    assert.ok(policy.draftLength(long, 16) > 0, `${policy.draftLength(long, 16)}`);
  });

  it("drafts longer after acceptance and shorter after rejection, per match length", () => {
    const policy = new DraftPolicy(CHEAP_BATCHES, { maxDraft: 16, gate: true });
    const start = policy.draftLength(long, 16);
    for (let i = 0; i < 10; i++) policy.record(long, 8, 8);
    const high = policy.draftLength(long, 16);
    for (let i = 0; i < 10; i++) policy.record(long, 8, 0);
    const low = policy.draftLength(long, 16);
    assert.ok(high > start, `${high} > ${start}`);
    assert.ok(low < start, `${low} < ${start}`);
    assert.equal(policy.acceptanceRate(short), new DraftPolicy(CHEAP_BATCHES, { maxDraft: 16, gate: true }).acceptanceRate(short), "another class is untouched");
  });

  it("a drafted token is judged in the class of its own match length: a copy that runs on teaches long-match acceptance", () => {
    const fromShort: DraftSource = { kind: "lookup", matchLength: 4 };
    const fromLong: DraftSource = { kind: "lookup", matchLength: 20 };
    const policy = new DraftPolicy(MIDDLING, { maxDraft: 16, gate: true });
    const fresh = new DraftPolicy(MIDDLING, { maxDraft: 16, gate: true });
    // Drafts that start on a 4-token match and are accepted whole: tokens 5..20 of a copy.
    for (let i = 0; i < 6; i++) policy.record(fromShort, 16, 16);
    assert.ok(policy.acceptanceRate(fromLong) > fresh.acceptanceRate(fromLong) + 0.05, `${policy.acceptanceRate(fromLong)} vs ${fresh.acceptanceRate(fromLong)}`);
    assert.ok(policy.draftLength(fromLong, 16) > fresh.draftLength(fromLong, 16), "a long match now drafts longer");
    // A rejection at the third drafted token counts against that token's class; later positions were never judged.
    const rejected = new DraftPolicy(MIDDLING, { maxDraft: 16, gate: true });
    const copying: DraftSource = { kind: "lookup", matchLength: 40 };
    for (let i = 0; i < 6; i++) rejected.record(fromLong, 16, 2);
    assert.ok(rejected.acceptanceRate(fromLong) < fresh.acceptanceRate(fromLong), `${rejected.acceptanceRate(fromLong)}`);
    assert.equal(rejected.acceptanceRate(copying), fresh.acceptanceRate(copying));
  });

  it("a draft is long where the match will grow into a class that is accepted, though its first tokens are in a weaker one", () => {
    const policy = new DraftPolicy(MIDDLING, { maxDraft: 16, gate: true });
    const almostLong: DraftSource = { kind: "lookup", matchLength: 30 };
    const longer: DraftSource = { kind: "lookup", matchLength: 40 };
    for (let i = 0; i < 10; i++) policy.record(longer, 16, 16);
    assert.equal(policy.draftLength(almostLong, 16), policy.draftLength(longer, 16), "two tokens in the weaker class do not cut the draft");
  });

  it("probes a long match the gate keeps closed, less often after each failed probe, and opens when probes are accepted", () => {
    const policy = new DraftPolicy(linearCost(16), { maxDraft: 16, gate: true });
    const medium: DraftSource = { kind: "lookup", matchLength: 10 };
    assert.equal(policy.draftLength(medium, 16), 0, "no probe before any plain token");
    const probesOver = (plainTokens: number, accept: boolean) => {
      let probes = 0;
      for (let t = 0; t < plainTokens; t++) {
        const k = policy.draftLength(medium, 16);
        if (k > 0) {
          probes++;
          assert.ok(k <= 4, "a probe is short");
          policy.record(medium, k, accept ? k : 0);
        } else policy.recordPlain(1, 50);
      }
      return probes;
    };
    const failed = probesOver(2000, false);
    assert.ok(failed >= 2 && failed <= 7, `failed probes back off: ${failed} in 2000 plain tokens`);
    const shortProbe = policy.draftLength(short, 16);
    assert.ok(shortProbe > 0 && shortProbe <= 4, `each class is probed on its own clock: the short one, never probed, is probed now (${shortProbe})`);
    policy.record(short, shortProbe, 0);
    assert.equal(policy.draftLength(short, 16), 0, "and not again right after its probe failed");
    // Where batches cost about one decode, accepted probes open the gate for real drafts.
    const cheap = new DraftPolicy(CHEAP_BATCHES, { maxDraft: 16, gate: true });
    for (let i = 0; i < 20; i++) cheap.record(medium, 4, 0);
    assert.equal(cheap.draftLength(medium, 16), 0, "closed after misses");
    for (let i = 0; i < 16; i++) cheap.recordPlain(1, 50);
    assert.ok(cheap.draftLength(medium, 16) > 0, "probe");
    for (let i = 0; i < 4; i++) cheap.record(medium, 4, 4);
    assert.ok(cheap.draftLength(medium, 16) > 4, "accepted probes: a real draft");
  });

  it("the live cost replaces the calibrated one: cheap measured batches open the gate, expensive ones close it", () => {
    const source: DraftSource = { kind: "lookup", matchLength: 12 };
    const opened = new DraftPolicy(linearCost(16), { maxDraft: 16, gate: true });
    for (let i = 0; i < 4; i++) opened.recordPlain(1, 80);
    for (let i = 0; i < 3; i++) opened.record(source, 8, 6, 120); // a batch of 9 for 1.5 decodes
    assert.ok(opened.relativeCost(8) < 2, `${opened.relativeCost(8)}`);
    assert.ok(opened.draftLength(source, 16) > 0);
    const closed = new DraftPolicy(CHEAP_BATCHES, { maxDraft: 16, gate: true });
    assert.ok(closed.draftLength(source, 16) > 0, "calibrated: pays");
    for (let i = 0; i < 4; i++) closed.recordPlain(1, 80);
    for (let i = 0; i < 3; i++) closed.record(source, 8, 4, 720); // a batch of 9 for 9 decodes
    assert.ok(closed.relativeCost(4) > 3, `sizes not measured follow the drift: ${closed.relativeCost(4)}`);
    assert.equal(closed.draftLength(source, 16), 0);
  });

  it("a draft model's own drafting time counts against its drafts", () => {
    const model: DraftSource = { kind: "model" };
    const cheapDrafts = new DraftPolicy(CHEAP_BATCHES, { maxDraft: 16, gate: true });
    const slowDrafts = new DraftPolicy(CHEAP_BATCHES, { maxDraft: 16, gate: true });
    for (const policy of [cheapDrafts, slowDrafts]) for (let i = 0; i < 4; i++) policy.recordPlain(1, 80);
    for (let i = 0; i < 3; i++) {
      cheapDrafts.record(model, 4, 3, 90, 4 * 2); // 2 ms per drafted token
      slowDrafts.record(model, 4, 3, 90, 4 * 70); // as slow as the target itself
    }
    assert.ok(cheapDrafts.draftLength(model, 16) > 0, "a cheap draft model drafts");
    assert.equal(slowDrafts.draftLength(model, 16), 0, "one that costs a decode per token does not pay");
  });

  it("a live cost ignores figures it cannot use and trusts a size after two samples", () => {
    const cost = new LiveCost(CHEAP_BATCHES);
    cost.recordPlain(Number.NaN);
    cost.recordPlain(-3);
    cost.recordVerify(99, 10);
    cost.recordVerify(0, 10);
    assert.equal(cost.relative(4), CHEAP_BATCHES.relative[4]);
    cost.recordPlain(10);
    cost.recordPlain(10);
    cost.recordVerify(4, 30);
    assert.equal(cost.relative(4), CHEAP_BATCHES.relative[4], "one sample is not trusted yet");
    cost.recordVerify(4, 30);
    assert.ok(Math.abs(cost.relative(4) - 3) < 1e-9, `${cost.relative(4)}`);
    assert.equal(cost.relative(0), 1);
  });

  it("interpolates measured verify costs", () => {
    const cost = interpolate(new Map([[1, 1.1], [4, 1.4], [8, 2]]), 10);
    assert.equal(cost[0], 1);
    assert.equal(cost[4], 1.4);
    assert.ok(Math.abs(cost[6] - 1.7) < 1e-9);
    assert.ok(cost[10] > cost[8], "extrapolated past the last measured size");
  });
});

for (const replyLoop of [false, true]) {
  const loop = replyLoop ? " (backend reply loop between drafts)" : "";
  describe(`speculative replies${loop}`, () => {
    it("greedy: the same tokens as without speculation, with drafts accepted", async () => {
      const plain = await conversation(new MarkovState(4096, 1, replyLoop));
      const state = speculative(new MarkovState(4096, 1, replyLoop));
      const spec = await conversation(state);
      assert.deepEqual(spec.replies, plain.replies);
      assert.ok(spec.session.counters.drafted > 0 && spec.session.counters.accepted > 0, JSON.stringify(spec.session.counters));
      assert.ok(spec.session.counters.steps < spec.replies.flat().length + spec.replies.length, "fewer target steps than tokens");
    });

    it("ledger == cache after every reply on a model whose every token depends on the whole cache", async () => {
      const plainState = new HashState(4096, 9, replyLoop);
      const inner = new HashState(4096, 9, replyLoop);
      const state = speculative(inner);
      const plain = new Session(plainState, tokenizer, 16);
      const session = new Session(state, tokenizer, 16);
      for (let turn = 0; turn < 6; turn++) {
        const prompt = tokenizer.encode(`q${turn} abcabc abcabc\n`, { specials: false });
        await plain.prefill(prompt);
        await session.prefill(prompt);
        assert.deepEqual(await reply(session, 30), await reply(plain, 30));
        assert.deepEqual(inner.cache, [...session.tokens], "cache == ledger");
        assert.deepEqual([...state.heldTokens], [...session.tokens], "the lookup index follows the cache");
      }
      assert.ok(session.counters.drafted > 0, "drafts were verified (and rejected, the tail erased)");
    });

    it("a stop in the middle of a verify batch leaves ledger == cache", async () => {
      const inner = new MarkovState(4096, 3, replyLoop);
      const state = speculative(inner);
      const session = new Session(state, tokenizer, 16);
      await session.prefill(tokenizer.encode("abefabefabef", { specials: false }));
      const controller = new AbortController();
      inner.beforeCall = (op) => {
        if (op === "verify") controller.abort();
      };
      const got = await reply(session, 60, 0, controller.signal);
      assert.equal(session.lastStopReason, "cancelled");
      assert.ok(inner.verifyBatches.length >= 1, "a verify batch was running when the stop came");
      assert.deepEqual(inner.cache, [...session.tokens]);
      assert.ok(got.length < 60);
      inner.beforeCall = undefined;
      const more = await reply(session, 10);
      assert.equal(more.length, 10);
      assert.deepEqual(inner.cache, [...session.tokens]);
    });

    it("a rewind and a reset keep the cache and the index exact", async () => {
      const inner = new MarkovState(4096, 4, replyLoop);
      const state = speculative(inner);
      const session = new Session(state, tokenizer, 16);
      await session.prefill(tokenizer.encode("abefabef", { specials: false }));
      await reply(session, 20);
      const undo = await session.rewind(5);
      assert.deepEqual(inner.cache, [...session.tokens].slice(0, inner.cache.length));
      await undo();
      await reply(session, 20);
      assert.deepEqual(inner.cache, [...session.tokens]);
      assert.deepEqual([...state.heldTokens], [...session.tokens]);
      await session.reset();
      assert.deepEqual([...state.heldTokens], []);
      await session.prefill(tokenizer.encode("hh", { specials: false }));
      await reply(session, 20);
      assert.deepEqual(inner.cache, [...session.tokens]);
    });

    it("never writes past capacity: a draft is cut to the room left", async () => {
      const capacity = 64;
      const inner = new MarkovState(capacity, 5, replyLoop, 0);
      const state = speculative(inner);
      const session = new Session(state, tokenizer, 16);
      await session.prefill(tokenizer.encode("abefabefabefabef", { specials: false }));
      const got = await reply(session, 500);
      assert.equal(session.lastStopReason, "capacity");
      assert.equal(session.position, capacity);
      assert.equal(got.length, capacity - 16);
      assert.deepEqual(inner.cache, [...session.tokens]);
    });

    it("sampling: token frequencies with speculation match the model's distribution", async () => {
      // 300 replies of 30 sampled tokens each way; each letter's successors are counted and
      // compared with the known transition rows by Pearson's chi-square (seeded, so the test is
      // deterministic). A sampler that keeps 30% of the drafts it should reject scores in the
      // hundreds.
      // Drafts from prompt lookup, and from a greedy draft model (always the likeliest successor:
      // a sampler that keeps drafts it should reject over-represents it).
      const count = async (spec: false | "lookup" | "draft") => {
        const counts = new Map<number, number[]>();
        for (let r = 0; r < 300; r++) {
          const inner = new MarkovState(4096, 1000 + r, replyLoop, 0);
          const drafts = spec === "draft" ? { lookup: false, draftModel: new DraftModelDrafter(new MarkovState(4096, 0, false, 0)) } : {};
          const session = new Session(spec ? speculative(inner, drafts) : inner, tokenizer, 16);
          await session.prefill(tokenizer.encode("abefabefabefabef", { specials: false }));
          let last = 102; // 'f'
          for (const token of await reply(session, 30, 1)) {
            const row = counts.get(last) ?? new Array(9).fill(0);
            row[token === EOS ? 8 : LETTERS.indexOf(token)]++;
            counts.set(last, row);
            last = token;
          }
        }
        return counts;
      };
      for (const spec of [false, "lookup", "draft"] as const) {
        const counts = await count(spec);
        let chiSquare = 0;
        let cells = 0;
        for (const letter of LETTERS) {
          const row = counts.get(letter)!;
          const total = row.reduce((a, b) => a + b, 0);
          const expected = transitions(letter, 0);
          for (let j = 0; j < LETTERS.length; j++) {
            chiSquare += (row[j] - total * expected[j]) ** 2 / (total * expected[j]);
            cells++;
          }
        }
        // Degrees of freedom: 8 rows × (8 − 1) = 56; the 0.1% critical value is 93.2.
        assert.ok(chiSquare < 93.2, `${spec || "plain"}: chi-square ${chiSquare.toFixed(1)} over ${cells} cells`);
      }
    });

    it("a draft model drafts, and its own state follows the target's tokens", async () => {
      const draftState = new MarkovState(4096, 9, replyLoop);
      const drafter = new DraftModelDrafter(draftState, 16);
      const inner = new MarkovState(4096, 8, replyLoop);
      const state = speculative(inner, { lookup: false, draftModel: drafter });
      const plain = await conversation(new MarkovState(4096, 8, replyLoop), 3);
      const spec = await conversation(state, 3);
      assert.deepEqual(spec.replies, plain.replies);
      const accepted = spec.session.counters.accepted / spec.session.counters.drafted;
      assert.ok(accepted > 0.9, `the same model as draft agrees with itself (${accepted})`);
      const ledger = [...spec.session.tokens];
      assert.deepEqual(draftState.cache, ledger.slice(0, draftState.cache.length), "draft cache is a prefix of the ledger");
      await spec.session.reset();
      await spec.session.prefill(tokenizer.encode("ab", { specials: false }));
      await reply(spec.session, 12);
      assert.deepEqual(draftState.cache, [...spec.session.tokens].slice(0, draftState.cache.length), "after a reset too");
    });
  });
}

describe("speculative engine", () => {
  it("gives every state a reply loop, also over a backend that cannot verify a batch (one token at a time, same replies)", async () => {
    class NoVerifyEngine extends FakeEngine {
      override async createState(): Promise<HashState> {
        const state = await super.createState();
        return Object.assign(state, { verify: undefined });
      }
    }
    const plain = new Session(await new FakeEngine(4096, 9).createState(), tokenizer, 16);
    const engine = new SpeculativeEngine(new NoVerifyEngine(4096, 9), { mode: "lookup", verifyCost: CHEAP_BATCHES });
    assert.equal(engine.replyLoop, true);
    const state = await engine.createState();
    assert.ok(state.generateReply, "a reply loop, as the engine reports");
    const session = new Session(state, tokenizer, 16);
    for (let turn = 0; turn < 6; turn++) {
      const tokens = tokenizer.encode(`q${turn} abcabc abcabc\n`, { specials: false });
      await plain.prefill(tokens);
      await session.prefill(tokens);
      assert.deepEqual(await reply(session, 20), await reply(plain, 20));
    }
    assert.ok(session.counters.drafted > 0, "drafts were verified token by token");
  });
});

describe("draft model vocabulary check", () => {
  it("refuses a draft model whose tokens differ", () => {
    const shifted: Tokenizer = { ...tokenizer, encode: (text, options) => tokenizer.encode(text, options).map((t) => t + 1), decode: (t) => tokenizer.decode(t), isEndOfGeneration: (t) => t === EOS };
    assert.throws(() => assertSameVocabulary(tokenizer, shifted, "/models/other.gguf"), (error: unknown) => error instanceof ModelInvalidError && /vocabulary/.test(error.message));
    assert.doesNotThrow(() => assertSameVocabulary(tokenizer, new ByteTokenizer(), "/models/same.gguf"));
  });
});
