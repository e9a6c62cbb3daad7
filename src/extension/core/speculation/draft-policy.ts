// How many tokens to draft next, decided per step from this conversation's own figures. A
// verify batch of k drafted tokens costs cost(k) plain decodes (live-cost.ts: measured on this
// conversation's steps, the one-time calibration until then); with a per-token acceptance
// rate a it yields 1 + a + … + a^k tokens on average. The policy drafts the k with the most
// tokens per unit of cost, and in `auto` nothing unless that beats a plain decode by a margin.
//
// Acceptance is not one number per model. How well a lookup draft is accepted depends on how
// long its match is (a reply that copies a function from the attached file matches dozens of
// tokens back; a stray three-token coincidence in prose does not), and on the conversation (an
// edit that rewrites the file accepts long drafts, a fresh explanation accepts none). So the
// rate is learnt per conversation and per match-length class. A class the gate keeps closed
// would never be measured again, so where a long match is at hand a short, cheap probe is
// drafted now and then, less often after each probe that failed.

import { LiveCost } from "./live-cost";
import type { VerifyCost } from "./verify-cost";

export interface DraftPolicyOptions {
  readonly maxDraft: number;
  /** Explicit modes draft whenever a drafter has something; `auto` drafts only where it pays. */
  readonly gate: boolean;
  /** Required gain over a plain decode before drafting in auto mode. */
  readonly margin?: number;
}

/** Where a draft comes from: a lookup match of a given length, or a draft model. */
export type DraftSource = { readonly kind: "lookup"; readonly matchLength: number } | { readonly kind: "model" };

/** Lookup match lengths told apart (lower bounds), each with its prior acceptance. */
const LOOKUP_CLASSES = [
  { from: 2, prior: 0.3 },
  { from: 4, prior: 0.45 },
  { from: 8, prior: 0.6 },
  { from: 16, prior: 0.75 },
  { from: 32, prior: 0.85 },
] as const;
const MODEL_PRIOR = 0.6;
/** Weight of the newest observation in an acceptance average. */
const SMOOTHING = 0.2;
/** Probes: only on a match at least this long, this many tokens, at first after this many plain tokens. */
const PROBE_MIN_MATCH = 8;
const PROBE_DRAFT = 4;
const PROBE_INTERVAL = { first: 16, max: 512 } as const;

export class DraftPolicy {
  /** Acceptance per class: LOOKUP_CLASSES' indexes, then the draft model. */
  private readonly rates: number[] = [...LOOKUP_CLASSES.map((c) => c.prior), MODEL_PRIOR];
  private readonly cost: LiveCost;
  private probeInterval: number = PROBE_INTERVAL.first;
  private plainSinceProbe = 0;
  /** The step being verified is a probe (its outcome sets the next probe's interval). */
  private probing = false;

  constructor(
    calibrated: VerifyCost,
    private readonly options: DraftPolicyOptions,
  ) {
    this.cost = new LiveCost(calibrated);
  }

  /** Per-token acceptance the policy assumes for `source` now. */
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
    if (source.kind === "lookup" && source.matchLength >= PROBE_MIN_MATCH && this.plainSinceProbe >= this.probeInterval) {
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
    this.plainSinceProbe += count;
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
    const observed = accepted + (accepted < drafted ? 1 : 0);
    // Each observed position is one Bernoulli trial: accepted ones succeeded, the first rejected failed.
    const rate = accepted / observed;
    const weight = 1 - (1 - SMOOTHING) ** observed;
    const i = classOf(source);
    this.rates[i] = (1 - weight) * this.rates[i] + weight * rate;
    if (this.probing) {
      this.plainSinceProbe = 0;
      this.probeInterval = accepted === drafted ? PROBE_INTERVAL.first : Math.min(PROBE_INTERVAL.max, this.probeInterval * 2);
      this.probing = false;
    }
  }

  /** A draft model's step costs its drafting too; a lookup draft costs nothing to make. */
  private bestLength(source: DraftSource, limit: number): number {
    const acceptance = this.acceptanceRate(source);
    const drafting = (k: number) => (source.kind === "model" ? this.cost.draftCost(k) : 0);
    let best = 0;
    let bestGain = 1 + (this.options.gate ? (this.options.margin ?? 0.05) : -Infinity);
    const cost = this.cost.curve(limit);
    let expected = 1;
    let power = 1;
    for (let k = 1; k <= limit; k++) {
      power *= acceptance;
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

function classOf(source: DraftSource): number {
  if (source.kind === "model") return LOOKUP_CLASSES.length;
  let i = 0;
  while (i + 1 < LOOKUP_CLASSES.length && source.matchLength >= LOOKUP_CLASSES[i + 1].from) i++;
  return i;
}

function priorOf(i: number): number {
  return i < LOOKUP_CLASSES.length ? LOOKUP_CLASSES[i].prior : MODEL_PRIOR;
}

/** Verify cost when nothing was measured: a batch costs as much as its tokens (no speedup assumed). */
export function linearCost(maxDraft: number): VerifyCost {
  return { relative: Array.from({ length: maxDraft + 1 }, (_, k) => 1 + k) };
}
