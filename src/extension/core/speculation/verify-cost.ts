// What a verify batch costs on this model, binary and machine, relative to one decoded
// token: measured once (a few batches on a scratch state) and remembered by the caller's
// store, like the thread calibration. On a memory-bound model a batch of 8 costs little more
// than one token; on a tiny model on a small CPU it may cost several, and then drafting
// does not pay: the policy reads these figures.

import type { KvState } from "../engine";

export interface VerifyCost {
  /** cost[k] = time of a verify batch of 1 + k tokens ÷ time of one decoded token; cost[0] = 1. */
  readonly relative: readonly number[];
}

export interface CalibrationStore {
  read(key: string): Promise<VerifyCost | undefined>;
  write(key: string, cost: VerifyCost): Promise<void>;
}

/**
 * Every draft length is measured: the curve is not smooth. ggml's CPU kernels work in row
 * tiles, so on a 2-core Xeon with Qwen2.5-Coder-1.5B a batch of 4 costs 1.72 decodes and one of
 * 3 costs 1.86, one of 16 costs 3.73 and one of 15 costs 4.58 (test/bench/results/
 * verify-cost-curve.md). Interpolating between a few sizes missed exactly those sweet spots.
 */
const MEASURED_DRAFTS = Array.from({ length: 16 }, (_, i) => i + 1);
const REPEATS = 3;
const GREEDY = { temperature: 0 } as const;

export function isVerifyCost(value: unknown): value is VerifyCost {
  const relative = (value as { relative?: unknown } | undefined)?.relative;
  return Array.isArray(relative) && relative.length >= 2 && relative.every((x) => typeof x === "number" && Number.isFinite(x) && x > 0);
}

/** Median time of `repeats` runs of `step`, each followed by `undo` (not timed). */
async function medianMs(step: () => Promise<unknown>, undo: () => Promise<void>, repeats = REPEATS): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    await step();
    times.push(performance.now() - start);
    await undo();
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/**
 * Measures on `state` (emptied afterwards), after a prompt of `probe` tokens. The single
 * decode it compares with is the backend's fastest: its reply loop per token when it has one.
 */
export async function measureVerifyCost(state: KvState, probe: readonly number[], maxDraft: number): Promise<VerifyCost> {
  if (!state.verify || probe.length < 2) return { relative: [1] };
  const context = probe.slice(0, -1);
  const next = probe[probe.length - 1];
  await state.reset();
  await state.evaluate(context);
  const base = context.length;
  const undo = () => state.truncate(base);
  await state.verify([next], GREEDY); // warm-up
  await undo();
  const loopTokens = 8;
  const single = state.generateReply
    ? (await medianMs(() => state.generateReply!([next], { sample: GREEDY, maxTokens: loopTokens }, () => {}).done, undo)) / loopTokens
    : await medianMs(() => state.evaluate([next], GREEDY), undo);
  const measured = new Map<number, number>();
  for (const k of MEASURED_DRAFTS) {
    if (k > maxDraft) break;
    const batch = [next, ...probe.slice(0, k)];
    measured.set(k, (await medianMs(() => state.verify!(batch, GREEDY), undo)) / single);
  }
  await state.reset();
  return { relative: interpolate(measured, maxDraft) };
}

/** relative[0] = 1; between measured sizes linearly, past the last one at its per-token slope. */
export function interpolate(measured: ReadonlyMap<number, number>, maxDraft: number): number[] {
  const points = [[0, 1] as const, ...[...measured.entries()].sort((a, b) => a[0] - b[0])];
  const relative = [1];
  for (let k = 1; k <= maxDraft; k++) {
    let i = points.findIndex(([size]) => size >= k);
    if (i === -1) i = points.length - 1;
    const [x1, y1] = points[Math.max(1, i)];
    const [x0, y0] = points[Math.max(0, i - 1)];
    const slope = x1 === x0 ? 0 : (y1 - y0) / (x1 - x0);
    relative.push(Math.max(relative[k - 1], y0 + slope * (k - x0)));
  }
  return relative;
}
