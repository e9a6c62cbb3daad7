// Two token streams lined up: how long their common prefix is (what a KV cache of one serves the
// other, exactly), and what lies after the first difference — identical runs (stable content
// that a prefix cache cannot reach because something before it changed) and the volatile
// segments between them. Pure; the diff is jsdiff's Myers over token ids, run only on what lies
// between the common prefix and the common suffix, and capped so two unrelated requests cost a
// bounded time (then only the prefix and suffix are known).

import { diffArrays } from "diff";
import { commonTokenPrefix } from "../../extension/core/request-pool/token-prefix";

/** Identical tokens shorter than this after the first difference count as part of the volatile segment around them (a lone space or newline that happens to match). */
export const DEFAULT_MIN_STABLE_RUN = 32;
/** Edits (tokens removed + added) the diff looks through before giving up. */
export const DEFAULT_MAX_EDITS = 4096;

export interface StableRun {
  /** Where the run starts in the earlier stream and in the later one. */
  readonly atEarlier: number;
  readonly atLater: number;
  readonly length: number;
}

export interface VolatileSegment {
  readonly atEarlier: number;
  readonly lengthEarlier: number;
  readonly atLater: number;
  readonly lengthLater: number;
}

export interface TokenAlignment {
  readonly commonPrefix: number;
  /** The later stream is the earlier one with tokens appended (or the same). */
  readonly extendsEarlier: boolean;
  readonly identical: boolean;
  /** Identical runs after the first difference, at least `minStableRun` long, in order; the common suffix is the last one when long enough. */
  readonly stableRuns: readonly StableRun[];
  /** Everything after the first difference that is not in a stable run. */
  readonly volatile: readonly VolatileSegment[];
  /** Tokens of the later stream in `stableRuns`. */
  readonly identicalAfterFirstDifference: number;
  /** False when the two differ by more than `maxEdits` after their common prefix and suffix: then the runs are only the common suffix. */
  readonly aligned: boolean;
}

export function alignTokens(
  earlier: readonly number[],
  later: readonly number[],
  options: { readonly minStableRun?: number; readonly maxEdits?: number } = {},
): TokenAlignment {
  const minRun = options.minStableRun ?? DEFAULT_MIN_STABLE_RUN;
  const prefix = commonTokenPrefix(earlier, later);
  let suffix = 0;
  while (suffix < earlier.length - prefix && suffix < later.length - prefix && earlier[earlier.length - 1 - suffix] === later[later.length - 1 - suffix]) suffix++;
  const midEarlier = earlier.slice(prefix, earlier.length - suffix);
  const midLater = later.slice(prefix, later.length - suffix);
  const runs = new RunBuilder(prefix, minRun);
  let aligned = true;
  if (midEarlier.length > 0 || midLater.length > 0) {
    const changes = midEarlier.length === 0 || midLater.length === 0 ? undefined : diffArrays(midEarlier, midLater, { maxEditLength: options.maxEdits ?? DEFAULT_MAX_EDITS });
    if (changes) {
      for (const change of changes) {
        const n = change.count ?? change.value.length;
        if (change.added) runs.differ(0, n);
        else if (change.removed) runs.differ(n, 0);
        else runs.same(n);
      }
    } else {
      // One side empty (an append or a cut) needs no diff; otherwise the diff gave up.
      aligned = midEarlier.length === 0 || midLater.length === 0;
      runs.differ(midEarlier.length, midLater.length);
    }
  }
  runs.same(suffix);
  const { stableRuns, volatile } = runs.done();
  return {
    commonPrefix: prefix,
    extendsEarlier: prefix === earlier.length,
    identical: prefix === earlier.length && prefix === later.length,
    stableRuns,
    volatile,
    identicalAfterFirstDifference: stableRuns.reduce((sum, run) => sum + run.length, 0),
    aligned,
  };
}

/** Walks the changes after the common prefix, keeping identical runs of at least `minRun` and merging the rest into volatile segments. */
class RunBuilder {
  private readonly stableRuns: StableRun[] = [];
  private readonly volatile: VolatileSegment[] = [];
  private atEarlier: number;
  private atLater: number;
  private open: { atEarlier: number; lengthEarlier: number; atLater: number; lengthLater: number } | undefined;

  constructor(
    start: number,
    private readonly minRun: number,
  ) {
    this.atEarlier = start;
    this.atLater = start;
  }

  same(n: number): void {
    if (n === 0) return;
    // Nothing is open only before the first difference has been seen, which the common prefix already took: kept as a run anyway.
    if (n >= this.minRun || this.open === undefined) {
      this.close();
      this.stableRuns.push({ atEarlier: this.atEarlier, atLater: this.atLater, length: n });
    } else {
      this.open.lengthEarlier += n;
      this.open.lengthLater += n;
    }
    this.atEarlier += n;
    this.atLater += n;
  }

  differ(inEarlier: number, inLater: number): void {
    if (inEarlier === 0 && inLater === 0) return;
    this.open ??= { atEarlier: this.atEarlier, lengthEarlier: 0, atLater: this.atLater, lengthLater: 0 };
    this.open.lengthEarlier += inEarlier;
    this.open.lengthLater += inLater;
    this.atEarlier += inEarlier;
    this.atLater += inLater;
  }

  done(): { stableRuns: StableRun[]; volatile: VolatileSegment[] } {
    this.close();
    return { stableRuns: this.stableRuns, volatile: this.volatile };
  }

  private close(): void {
    if (this.open) this.volatile.push({ ...this.open });
    this.open = undefined;
  }
}
