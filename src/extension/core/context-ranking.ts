// Ranks workspace paths for @-completion: a fuzzy subsequence match, scored so that what a
// user means comes first — matches in the file name over matches in folders, consecutive
// characters and word starts over scattered ones, shorter paths on ties. Pure and allocation-
// light: it runs on every keystroke over the whole (cached) file list.

export interface RankedPath {
  readonly path: string;
  readonly score: number;
}

const WORD_BREAK = /[\\/._\-\s]/;

/** Score of `query` as a subsequence of `target` (both lower-case), or -1 when it is not one. */
function subsequenceScore(query: string, target: string, original: string): number {
  let score = 0;
  let from = 0;
  let previous = -2;
  for (let q = 0; q < query.length; q++) {
    const at = target.indexOf(query[q], from);
    if (at < 0) return -1;
    let points = 1;
    if (at === previous + 1) points += 4;
    if (at === 0 || WORD_BREAK.test(target[at - 1]) || (original[at] !== target[at] && original[at - 1] === target[at - 1])) points += 3;
    score += points - Math.min(3, (at - from) * 0.05);
    previous = at;
    from = at + 1;
  }
  return score;
}

export function scorePath(query: string, path: string): number {
  const q = query.toLowerCase();
  if (q === "") return 1 / (1 + path.length);
  const lower = path.toLowerCase();
  const slash = lower.lastIndexOf("/");
  const base = lower.slice(slash + 1);
  const baseScore = subsequenceScore(q, base, path.slice(slash + 1));
  const fullScore = subsequenceScore(q, lower, path);
  if (baseScore < 0 && fullScore < 0) return -1;
  let score = Math.max(baseScore >= 0 ? baseScore * 2 : -1, fullScore);
  if (base.startsWith(q)) score += 10;
  if (base === q || base.split(".")[0] === q) score += 10;
  return score - path.length * 0.01;
}

/** The best `limit` paths for `query`, best first. */
export function rankPaths(query: string, paths: readonly string[], limit: number): RankedPath[] {
  const best: RankedPath[] = [];
  for (const path of paths) {
    const score = scorePath(query, path);
    if (score < 0) continue;
    if (best.length === limit && score <= best[best.length - 1].score) continue;
    // Insertion into a short sorted list: cheaper than sorting thousands of matches.
    let i = best.length;
    while (i > 0 && best[i - 1].score < score) i--;
    best.splice(i, 0, { path, score });
    if (best.length > limit) best.pop();
  }
  return best;
}
