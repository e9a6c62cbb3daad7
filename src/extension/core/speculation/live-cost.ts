// What a verify batch costs now, relative to a plain decoded token, from this conversation's
// own steps. The one-time calibration (verify-cost.ts) is measured at a 48-token context on a
// scratch state; the ratio that decides whether drafting pays moves with the context length,
// the batch size's fit to the kernels and whatever else runs on the machine. So every plain
// token and every verify batch is timed, and the figures measured here replace the calibrated
// ones as soon as they exist; sizes not yet measured are the calibrated curve scaled by how
// far the measured sizes are off it.

import type { VerifyCost } from "./verify-cost";

/** Weight of the newest sample in each running average. */
const SMOOTHING = 0.25;
/** Samples a figure needs before it stands for its size on its own. */
const TRUSTED_AFTER = 2;
/**
 * A draft model's time per drafted token ÷ a plain decode of the target, until measured: a
 * 0.5B draft for a 1.5B target on a small CPU (a draft that costs nothing does not exist).
 */
const PRIOR_DRAFT_RATIO = 0.5;

interface Average {
  ms: number;
  samples: number;
}

export class LiveCost {
  private plain: Average | undefined;
  private readonly verify = new Map<number, Average>();
  /** A draft model's ms per drafted token. */
  private drafting: Average | undefined;

  constructor(private readonly calibrated: VerifyCost) {}

  /** The largest draft the calibration has a figure for. */
  get maxDraft(): number {
    return this.calibrated.relative.length - 1;
  }

  /** One plainly decoded token took `ms`. */
  recordPlain(ms: number): void {
    this.plain = update(this.plain, ms);
  }

  /** A verify batch of the last token and `drafted` drafts took `ms`. */
  recordVerify(drafted: number, ms: number): void {
    if (drafted < 1 || drafted > this.maxDraft) return;
    this.verify.set(drafted, update(this.verify.get(drafted), ms));
  }

  /** A draft model drafted `count` tokens in `ms`. */
  recordDraft(count: number, ms: number): void {
    if (count > 0) this.drafting = update(this.drafting, ms / count);
  }

  /** What drafting k tokens with the draft model costs, in plain decodes of the target. */
  draftCost(drafted: number): number {
    const plain = this.plain;
    const ratio = plain && plain.samples >= TRUSTED_AFTER && this.drafting && this.drafting.samples >= TRUSTED_AFTER ? this.drafting.ms / plain.ms : PRIOR_DRAFT_RATIO;
    return drafted * ratio;
  }

  /** cost[k] = a verify batch of 1 + k tokens ÷ one decoded token, now; cost(0) = 1. */
  relative(drafted: number): number {
    return this.curve(drafted)[Math.max(0, drafted)];
  }

  /**
   * relative(k) for k = 0..limit in one pass: the policy weighs every length each time it is
   * asked (per decoded token while the backend's loop runs), so the drift is computed once.
   */
  curve(limit: number): number[] {
    const plain = this.plain;
    const trusted = plain !== undefined && plain.samples >= TRUSTED_AFTER;
    const drift = trusted ? this.drift(plain.ms) : 1;
    const costs = [1];
    for (let k = 1; k <= limit; k++) {
      const calibrated = this.calibrated.relative[Math.min(k, this.maxDraft)];
      const own = this.verify.get(k);
      if (!trusted) costs.push(calibrated);
      else if (own && own.samples >= TRUSTED_AFTER) costs.push(Math.max(1, own.ms / plain.ms));
      else costs.push(Math.max(1, calibrated * drift));
    }
    return costs;
  }

  /** How the measured sizes compare with the calibrated curve (1 when none is measured). */
  private drift(plainMs: number): number {
    let logSum = 0;
    let count = 0;
    for (const [drafted, average] of this.verify) {
      if (average.samples < TRUSTED_AFTER) continue;
      logSum += Math.log(average.ms / plainMs / this.calibrated.relative[drafted]);
      count++;
    }
    return count === 0 ? 1 : Math.exp(logSum / count);
  }
}

function update(average: Average | undefined, ms: number): Average {
  if (!Number.isFinite(ms) || ms <= 0) return average ?? { ms: 0, samples: 0 };
  if (!average || average.samples === 0) return { ms, samples: 1 };
  return { ms: (1 - SMOOTHING) * average.ms + SMOOTHING * ms, samples: average.samples + 1 };
}
