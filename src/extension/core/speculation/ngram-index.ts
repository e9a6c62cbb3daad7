// Where each n-gram of a token list ends, updated token by token as the list grows or loses
// its tail. A lookup finds the most recent earlier end of the list's last n tokens and
// returns what followed it: prompt lookup decoding's draft.

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
   * Continuation of the last n tokens of `tokens + tail` at their most recent earlier
   * occurrence within `tokens` (the continuation may run into `tail`), up to `max` tokens.
   */
  continuation(tokens: readonly number[], tail: readonly number[], max: number): number[] {
    const total = tokens.length + tail.length;
    if (total < this.n + 1) return [];
    const at = (i: number) => (i < tokens.length ? tokens[i] : tail[i - tokens.length]);
    let key = "";
    for (let i = total - this.n; i < total; i++) key += `${at(i)},`;
    const list = this.ends.get(key);
    if (!list) return [];
    // The most recent occurrence that ends before the suffix itself does.
    for (let k = list.length - 1; k >= 0; k--) {
      const end = list[k];
      if (end >= total - 1) continue;
      const draft: number[] = [];
      for (let i = end + 1; i < total && draft.length < max; i++) draft.push(at(i));
      return draft;
    }
    return [];
  }
}

function keyOf(tokens: readonly number[], start: number, n: number): string {
  let key = "";
  for (let i = start; i < start + n; i++) key += `${tokens[i]},`;
  return key;
}
