// The tokens a KV cache holds, kept beside it with an n-gram index that follows every
// append and tail erase, so prompt lookup never rescans the cache. A mirror that lost track
// of its cache (a backend call failed half way) is marked unknown and rebuilt only from a
// state whose tokens are known again (reset, snapshot load).

import { NgramIndex, type NgramMatch } from "./ngram-index";

/** Longest n-gram first: a longer match predicts its continuation better. */
const NGRAM_SIZES = [4, 3, 2] as const;

export class TokenMirror {
  private readonly held: number[] = [];
  private readonly indexes = NGRAM_SIZES.map((n) => new NgramIndex(n));
  private known = true;

  get tokens(): readonly number[] {
    return this.held;
  }

  get length(): number {
    return this.held.length;
  }

  /** Whether the mirror matches the cache (lookup drafts only from a known one). */
  get trusted(): boolean {
    return this.known;
  }

  append(tokens: readonly number[]): void {
    for (const token of tokens) {
      this.held.push(token);
      for (const index of this.indexes) index.added(this.held);
    }
  }

  truncate(length: number): void {
    while (this.held.length > length) {
      for (const index of this.indexes) index.removing(this.held);
      this.held.pop();
    }
  }

  replace(tokens: readonly number[]): void {
    this.truncate(0);
    this.known = true;
    this.append(tokens);
  }

  /** After a failed backend call: keep what is surely there, or stop trusting the mirror. */
  resync(cacheLength: number): void {
    if (cacheLength <= this.held.length) this.truncate(cacheLength);
    else this.known = false;
  }

  /**
   * Prompt lookup: the tokens that followed an earlier occurrence of the longest suffix of
   * `held + tail` found in the index (at most `max`), with the match's length.
   */
  match(tail: readonly number[], max: number): NgramMatch {
    if (!this.known || max <= 0) return { tokens: [], matchLength: 0 };
    for (const index of this.indexes) {
      const found = index.match(this.held, tail, max);
      if (found.tokens.length > 0) return found;
    }
    return { tokens: [], matchLength: 0 };
  }

  /** The draft tokens of match(). */
  lookup(tail: readonly number[], max: number): number[] {
    return [...this.match(tail, max).tokens];
  }
}
