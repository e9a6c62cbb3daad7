// How many tokens to draft next. A verify batch of k drafted tokens costs cost(k) single
// decodes (measured per model, binary and machine: verify-cost.ts); with a per-token
// acceptance rate a (tracked over recent steps), it yields 1 + a + … + a^k tokens on
// average. The policy drafts the k with the best tokens per unit of cost, and nothing when
// no k beats a plain decode by a margin: speculation never makes decoding slower by design.

export interface VerifyCost {
  /** cost[k] = time of a verify batch of 1 + k tokens ÷ time of one decoded token; cost[0] = 1. */
  readonly relative: readonly number[];
}

export interface DraftPolicyOptions {
  readonly maxDraft: number;
  /** Explicit modes draft whenever a drafter has something; `auto` drafts only where it pays. */
  readonly gate: boolean;
  /** Required gain over a plain decode before drafting in auto mode. */
  readonly margin?: number;
}

/** Weight of the newest observation in the acceptance average. */
const SMOOTHING = 0.2;
const PRIOR_ACCEPTANCE = 0.6;

/**
 * Acceptance is tracked apart after a step whose draft was kept whole (the reply is copying
 * text the cache holds: the next draft from there is likely right too, so a long one pays even
 * where a batch is expensive) and after a step with a rejection.
 */
type Streak = "afterFull" | "afterMiss";

export class DraftPolicy {
  private readonly rates: Record<Streak, number> = { afterFull: PRIOR_ACCEPTANCE, afterMiss: PRIOR_ACCEPTANCE };
  private streak: Streak = "afterMiss";

  private get acceptance(): number {
    return this.rates[this.streak];
  }

  constructor(
    private readonly cost: VerifyCost,
    private readonly options: DraftPolicyOptions,
  ) {}

  /** Per-token acceptance rate the policy currently assumes. */
  get acceptanceRate(): number {
    return this.acceptance;
  }

  /** Tokens to draft now (0: decode plainly), at most `room`. */
  draftLength(room: number): number {
    const limit = Math.min(room, this.options.maxDraft, this.cost.relative.length - 1);
    if (limit <= 0) return 0;
    let best = 0;
    let bestGain = 1 + (this.options.gate ? (this.options.margin ?? 0.05) : -Infinity);
    let expected = 1;
    let power = 1;
    for (let k = 1; k <= limit; k++) {
      power *= this.acceptance;
      expected += power;
      const gain = expected / this.cost.relative[k];
      if (gain > bestGain) {
        best = k;
        bestGain = gain;
      }
    }
    // An explicit mode keeps drafting at a low acceptance, but short.
    return this.options.gate ? best : Math.max(best, Math.min(2, limit));
  }

  /**
   * A new reply: recent acceptance counts for less, so a policy that stopped drafting after a
   * run of misses tries again where the conversation has turned repetitive.
   */
  newReply(): void {
    for (const key of ["afterFull", "afterMiss"] as const) this.rates[key] = (this.rates[key] + PRIOR_ACCEPTANCE) / 2;
    this.streak = "afterMiss";
  }

  /** One verify step: `accepted` of `drafted` tokens kept (then one rejected, unless all were kept). */
  record(drafted: number, accepted: number): void {
    if (drafted <= 0) return;
    const observed = accepted + (accepted < drafted ? 1 : 0);
    // Each observed position is one Bernoulli trial: accepted ones succeeded, the first rejected failed.
    const rate = accepted / observed;
    const weight = 1 - (1 - SMOOTHING) ** observed;
    this.rates[this.streak] = (1 - weight) * this.rates[this.streak] + weight * rate;
    this.streak = accepted === drafted ? "afterFull" : "afterMiss";
  }
}

/** Verify cost when nothing was measured: a batch costs as much as its tokens (no speedup assumed). */
export function linearCost(maxDraft: number): VerifyCost {
  return { relative: Array.from({ length: maxDraft + 1 }, (_, k) => 1 + k) };
}
