// Ranks workspace paths for @-completion: a fuzzy subsequence match, scored so that what a
// user means comes first — matches in the file name over matches in folders, consecutive
// characters and word starts over scattered ones, shorter paths on ties. It runs on every
// keystroke over the whole cached file list, so a PathIndex keeps the lower-cased paths and,
// while the user types on, narrows the previous query's matches instead of rescanning.

export interface RankedPath {
  readonly path: string;
  readonly score: number;
}

function isBreak(code: number): boolean {
  // / \ . _ - and space
  return code === 47 || code === 92 || code === 46 || code === 95 || code === 45 || code === 32;
}

function isUpper(code: number): boolean {
  return code >= 65 && code <= 90;
}

/** Score of `query` as a subsequence of lower[from..], or -1 when it is not one. */
function subsequenceScore(query: string, lower: string, original: string, offset: number): number {
  let score = 0;
  let from = offset;
  let previous = -2;
  for (let q = 0; q < query.length; q++) {
    const at = lower.indexOf(query[q], from);
    if (at < 0) return -1;
    let points = 1;
    if (at === previous + 1) points += 4;
    if (at === offset || isBreak(lower.charCodeAt(at - 1)) || (isUpper(original.charCodeAt(at)) && !isUpper(original.charCodeAt(at - 1)))) points += 3;
    score += points - Math.min(3, (at - from) * 0.05);
    previous = at;
    from = at + 1;
  }
  return score;
}

function isSubsequence(query: string, lower: string): boolean {
  let from = 0;
  for (let q = 0; q < query.length; q++) {
    const at = lower.indexOf(query[q], from);
    if (at < 0) return false;
    from = at + 1;
  }
  return true;
}

/** `q` lower-cased; `lower` the path lower-cased; -1 when the path does not match. */
function score(q: string, path: string, lower: string, base: number): number {
  if (q === "") return 1 / (1 + path.length);
  const baseScore = subsequenceScore(q, lower, path, base);
  const fullScore = subsequenceScore(q, lower, path, 0);
  if (baseScore < 0 && fullScore < 0) return -1;
  let result = Math.max(baseScore >= 0 ? baseScore * 2 : -1, fullScore);
  if (lower.startsWith(q, base)) {
    result += 10;
    const end = base + q.length;
    if (end === lower.length || lower.charCodeAt(end) === 46) result += 10;
  }
  return result - path.length * 0.01;
}

export function scorePath(query: string, path: string): number {
  return score(query.toLowerCase(), path, path.toLowerCase(), path.lastIndexOf("/") + 1);
}

export class PathIndex {
  private readonly lower: string[];
  private readonly base: number[];
  private last: { query: string; matches: number[] } | undefined;

  constructor(readonly paths: readonly string[]) {
    this.lower = paths.map((p) => p.toLowerCase());
    this.base = paths.map((p) => p.lastIndexOf("/") + 1);
  }

  /** The best `limit` paths for `query`, best first. */
  rank(query: string, limit: number): RankedPath[] {
    const q = query.toLowerCase();
    // A query that extends the last one can only match what the last one matched.
    const candidates = this.last && q.startsWith(this.last.query) ? this.last.matches : undefined;
    const matches: number[] = [];
    const best: RankedPath[] = [];
    const consider = (i: number) => {
      if (!isSubsequence(q, this.lower[i])) return;
      matches.push(i);
      const s = score(q, this.paths[i], this.lower[i], this.base[i]);
      if (best.length === limit && s <= best[best.length - 1].score) return;
      // Insertion into a short sorted list: cheaper than sorting thousands of matches.
      let at = best.length;
      while (at > 0 && best[at - 1].score < s) at--;
      best.splice(at, 0, { path: this.paths[i], score: s });
      if (best.length > limit) best.pop();
    };
    if (candidates) for (const i of candidates) consider(i);
    else for (let i = 0; i < this.paths.length; i++) consider(i);
    this.last = { query: q, matches };
    return best;
  }
}

/** One-off ranking (tests, small lists); completion keeps a PathIndex. */
export function rankPaths(query: string, paths: readonly string[], limit: number): RankedPath[] {
  return new PathIndex(paths).rank(query, limit);
}
