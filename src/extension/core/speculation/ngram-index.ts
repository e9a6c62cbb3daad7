// Where each n-gram of a token list ends, updated token by token as the list grows or loses
// its tail. A lookup finds an earlier end of the list's last n tokens and returns what
// followed it (prompt lookup decoding's draft) with how far back the match goes.

export class NgramIndex {
  /** n-gram key → positions (ascending) of the n-gram's last token. */
  private readonly ends = new Map<string, number[]>();

  constructor(readonly n: number) {}

  /** `tokens` just grew by one token: index the n-gram ending at it. */
  added(tokens: readonly number[]): void {
    const end = tokens.length - 1;
    if (end + 1 < this.n) return;
    const key = keyOf(tokens, end + 1 - this.n, this.n);
    const list = this.ends.get(key);
    if (list) list.push(end);
    else this.ends.set(key, [end]);
  }

  /** `tokens`' last token is about to be removed: forget the n-gram ending at it. */
  removing(tokens: readonly number[]): void {
    const end = tokens.length - 1;
    if (end + 1 < this.n) return;
    const key = keyOf(tokens, end + 1 - this.n, this.n);
    const list = this.ends.get(key);
    if (!list) return;
    if (list[list.length - 1] === end) list.pop();
    if (list.length === 0) this.ends.delete(key);
  }

  /**
   * What followed an earlier occurrence of the last n tokens of `tokens + tail` within
   * `tokens` (the continuation may run into `tail`), up to `max` tokens. Of the most recent
   * occurrences, the one whose match extends furthest back wins: a longer agreement with the
   * text being written predicts its continuation better (an edit that copies a function
   * matches the function, not the last place the same three tokens appeared).
   */
  match(tokens: readonly number[], tail: readonly number[], max: number): NgramMatch {
    const total = tokens.length + tail.length;
    if (total < this.n + 1 || max <= 0) return NO_MATCH;
    const at = (i: number) => (i < tokens.length ? tokens[i] : tail[i - tokens.length]);
    let key = "";
    for (let i = total - this.n; i < total; i++) key += `${at(i)},`;
    const list = this.ends.get(key);
    if (!list) return NO_MATCH;
    let bestEnd = -1;
    let bestLength = 0;
    let examined = 0;
    for (let k = list.length - 1; k >= 0 && examined < CANDIDATES; k--) {
      const end = list[k];
      // An occurrence that ends where the suffix does is the suffix itself.
      if (end >= total - 1) continue;
      examined++;
      let length = this.n;
      while (length < MAX_MATCH && end - length >= 0 && at(end - length) === at(total - 1 - length)) length++;
      if (length > bestLength) {
        bestEnd = end;
        bestLength = length;
      }
    }
    if (bestEnd < 0) return NO_MATCH;
    const draft: number[] = [];
    for (let i = bestEnd + 1; i < total && draft.length < max; i++) draft.push(at(i));
    return draft.length > 0 ? { tokens: draft, matchLength: bestLength } : NO_MATCH;
  }
}

export interface NgramMatch {
  readonly tokens: readonly number[];
  /** How many tokens before the draft agree with the text being written (at least n; at most MAX_MATCH). */
  readonly matchLength: number;
}

const NO_MATCH: NgramMatch = { tokens: [], matchLength: 0 };
/** Recent occurrences compared for the longest match: bounded, since this runs per decoded token. */
const CANDIDATES = 8;
/** A match this long already says "copying"; longer ones are not told apart. */
const MAX_MATCH = 64;

function keyOf(tokens: readonly number[], start: number, n: number): string {
  let key = "";
  for (let i = start; i < start + n; i++) key += `${tokens[i]},`;
  return key;
}
