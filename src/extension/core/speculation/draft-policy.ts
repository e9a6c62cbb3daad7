// How many tokens to draft next, decided per step from this conversation's own figures. A
// verify batch of k drafted tokens costs cost(k) plain decodes (live-cost.ts: measured on this
// conversation's steps, the one-time calibration until then); with acceptance a_i for the
// i-th drafted token it yields 1 + a_1 + a_1·a_2 + … tokens on average. The policy drafts
// the k with the most tokens per unit of cost, and in `auto` nothing unless that beats a
// plain decode.
//
// Acceptance is not one number per model. How well a lookup draft is accepted depends on how
// long its match is (a reply that copies a function from the attached file matches dozens of
// tokens back; a stray three-token coincidence in prose does not), and on the conversation (an
// edit that rewrites the file accepts long drafts, a fresh explanation accepts none). So the
// rate is learnt per conversation and per match-length class, and per drafted position: the
// i-th token of a draft is predicted by a match i − 1 tokens longer than the first (if the
// ones before it are accepted, they extend the match), so a draft that starts on a 10-token
// match ends in the class of 25-token matches. Copying is not a coin flipped per token:
// once a reply has followed the file for 30 tokens it rarely leaves it on the next, so a
// geometric rate per draft would cut drafts short exactly where they pay most.
//
// A class the gate keeps closed would never be measured again, and the priors are guesses:
// in an editing chat even a two-token match is accepted often enough to pay (measured: 1.35
// tokens per decode's worth of verify on Qwen2.5-Coder-1.5B, against 1 for a plain decode),
// in prose it is not. So every closed class is probed now and then with a short draft, each
// class on its own clock, less often after each probe that failed.

import { LiveCost } from "./live-cost";
import type { VerifyCost } from "./verify-cost";

export interface DraftPolicyOptions {
  readonly maxDraft: number;
  /** Explicit modes draft whenever a drafter has something; `auto` drafts only where it pays. */
  readonly gate: boolean;
  /**
   * Required gain over a plain decode before drafting in auto mode (default 0). A margin of
   * 5% replayed slower on every editing chat: the learnt rates lag behind a reply that starts
   * copying, so a draft that pays looks marginal when it is made.
   */
  readonly margin?: number;
}

/** Where a draft comes from: a lookup match of a given length, or a draft model. */
export type DraftSource = { readonly kind: "lookup"; readonly matchLength: number } | { readonly kind: "model" };

/**
 * Lookup match lengths told apart (lower bounds), each with its prior acceptance: a little
 * below what the editing chats measured per class on Qwen2.5-Coder-1.5B; each conversation
 * learns its own from there (a chat of prose questions takes them down in a few steps).
 */
const LOOKUP_CLASSES = [
  { from: 2, prior: 0.45 },
  { from: 4, prior: 0.55 },
  { from: 8, prior: 0.65 },
  { from: 16, prior: 0.75 },
  { from: 32, prior: 0.85 },
] as const;
const MODEL_PRIOR = 0.6;
/** Weight of the newest observation in an acceptance average. */
const SMOOTHING = 0.2;
/** Probes: this many tokens, at first after this many plain tokens (per class), backing off to the max. */
const PROBE_DRAFT = 3;
const PROBE_INTERVAL = { first: 16, max: 512 } as const;

export class DraftPolicy {
  /** Acceptance per class: LOOKUP_CLASSES' indexes, then the draft model. */
  private readonly rates: number[] = [...LOOKUP_CLASSES.map((c) => c.prior), MODEL_PRIOR];
  private readonly cost: LiveCost;
  /** Per class: plain tokens to wait between probes, and the plain-token count at its last probe. */
  private readonly probeInterval: number[] = this.rates.map(() => PROBE_INTERVAL.first);
  private readonly lastProbeAt: number[] = this.rates.map(() => 0);
  private plainTokens = 0;
  /** The step being verified is a probe (its outcome sets the next probe's interval). */
  private probing = false;

  constructor(
    calibrated: VerifyCost,
    private readonly options: DraftPolicyOptions,
  ) {
    this.cost = new LiveCost(calibrated);
  }

  /** Per-token acceptance the policy assumes now for the first token drafted from `source`. */
  acceptanceRate(source: DraftSource): number {
    return this.rates[classOf(source)];
  }

  /** The current cost of a verify batch of 1 + k tokens, in plain decodes. */
  relativeCost(drafted: number): number {
    return this.cost.relative(drafted);
  }

  /**
   * Tokens to draft now from `source` (0: decode plainly), at most `available` (what the
   * drafter has: a lookup match's continuation, or the room left for a draft model).
   */
  draftLength(source: DraftSource, available: number): number {
    const limit = Math.min(available, this.options.maxDraft, this.cost.maxDraft);
    this.probing = false;
    if (limit <= 0) return 0;
    const best = this.bestLength(source, limit);
    if (!this.options.gate) return Math.max(best, Math.min(2, limit)); // An explicit mode keeps drafting at a low acceptance, but short.
    if (best > 0) return best;
    const i = classOf(source);
    if (source.kind === "lookup" && this.plainTokens - this.lastProbeAt[i] >= this.probeInterval[i]) {
      this.probing = true;
      return Math.min(PROBE_DRAFT, limit);
    }
    return 0;
  }

  /** Whether draftLength would draft from `source` now (asked per token while the backend's loop decodes plainly). */
  wouldDraft(source: DraftSource, available: number): boolean {
    const probing = this.probing;
    const drafts = this.draftLength(source, available) > 0;
    this.probing = probing;
    return drafts;
  }

  /**
   * A new reply: the acceptance learnt counts for less, so a conversation that stopped
   * drafting after a run of misses tries again where it has turned repetitive.
   */
  newReply(): void {
    for (let i = 0; i < this.rates.length; i++) this.rates[i] = (this.rates[i] + priorOf(i)) / 2;
  }

  /** `count` tokens were decoded plainly in `ms`. */
  recordPlain(count: number, ms: number): void {
    if (count <= 0) return;
    this.plainTokens += count;
    this.cost.recordPlain(ms / count);
  }

  /**
   * One verify step: `accepted` of `drafted` tokens from `source` kept (then one rejected,
   * unless all were kept), the verify batch in `ms`, a draft model's drafting in `draftMs`.
   */
  record(source: DraftSource, drafted: number, accepted: number, ms?: number, draftMs?: number): void {
    if (drafted <= 0) return;
    if (ms !== undefined) this.cost.recordVerify(drafted, ms);
    if (draftMs !== undefined && source.kind === "model") this.cost.recordDraft(drafted, draftMs);
    // Each observed position is one Bernoulli trial in its own class: accepted ones succeeded,
    // the first rejected failed; positions after it were never judged.
    const observed = Math.min(drafted, accepted + 1);
    for (let position = 0; position < observed; position++) {
      const i = classOf(source, position);
      this.rates[i] = (1 - SMOOTHING) * this.rates[i] + SMOOTHING * (position < accepted ? 1 : 0);
    }
    if (this.probing) {
      const i = classOf(source);
      this.lastProbeAt[i] = this.plainTokens;
      this.probeInterval[i] = accepted === drafted ? PROBE_INTERVAL.first : Math.min(PROBE_INTERVAL.max, this.probeInterval[i] * 2);
      this.probing = false;
    }
  }

  /** A draft model's step costs its drafting too; a lookup draft costs nothing to make. */
  private bestLength(source: DraftSource, limit: number): number {
    const drafting = (k: number) => (source.kind === "model" ? this.cost.draftCost(k) : 0);
    let best = 0;
    let bestGain = 1 + (this.options.gate ? (this.options.margin ?? 0) : -Infinity);
    const cost = this.cost.curve(limit);
    // Expected tokens from a draft of k: 1 + P(first k' accepted) summed over k' ≤ k.
    let expected = 1;
    let power = 1;
    for (let k = 1; k <= limit; k++) {
      power *= this.rates[classOf(source, k - 1)];
      expected += power;
      const gain = expected / (cost[k] + drafting(k));
      if (gain > bestGain) {
        best = k;
        bestGain = gain;
      }
    }
    return best;
  }
}

/** The class of a draft's token at `position` (0: the first drafted): its match is `position` tokens longer. */
function classOf(source: DraftSource, position = 0): number {
  if (source.kind === "model") return LOOKUP_CLASSES.length;
  const matchLength = source.matchLength + position;
  let i = 0;
  while (i + 1 < LOOKUP_CLASSES.length && matchLength >= LOOKUP_CLASSES[i + 1].from) i++;
  return i;
}

function priorOf(i: number): number {
  return i < LOOKUP_CLASSES.length ? LOOKUP_CLASSES[i].prior : MODEL_PRIOR;
}

/** Verify cost when nothing was measured: a batch costs as much as its tokens (no speedup assumed). */
export function linearCost(maxDraft: number): VerifyCost {
  return { relative: Array.from({ length: maxDraft + 1 }, (_, k) => 1 + k) };
}
