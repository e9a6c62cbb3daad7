// The ledger seen as text: a list of segments (a rendered prompt suffix, a generated reply)
// each holding its text and the exact tokens the cache holds for it. It answers "which
// token boundary lies at or before this character", which is where a rewind may stop.

import type { Tokenizer } from "./engine";

const REPLACEMENT = "\uFFFD";

export interface Segment {
  readonly text: string;
  readonly tokens: readonly number[];
}

export interface Boundary {
  /** Tokens before the boundary. */
  readonly tokens: number;
  /** Characters of text before the boundary. */
  readonly chars: number;
}

export class PromptSegments {
  private list: Segment[] = [];
  private textCache = "";
  private tokenCount = 0;

  constructor(private readonly tokenizer: Tokenizer) {}

  get text(): string {
    return this.textCache;
  }

  get length(): number {
    return this.tokenCount;
  }

  get isEmpty(): boolean {
    return this.list.length === 0;
  }

  /** Every token, in order: what the ledger holds. */
  tokens(): number[] {
    return this.list.flatMap((segment) => segment.tokens);
  }

  /** The segments themselves (a KV snapshot keeps them to restore exactly). */
  get all(): readonly Segment[] {
    return this.list;
  }

  append(segment: Segment): void {
    if (segment.tokens.length === 0 && segment.text.length === 0) return;
    this.list.push(segment);
    this.textCache += segment.text;
    this.tokenCount += segment.tokens.length;
  }

  /**
   * The last token boundary whose text so far is a prefix of the ledger text and ends at or
   * before character `chars`. Inside a segment, prefixes of its tokens are decoded to find
   * it (binary search), so a rewind stops at the first differing token, never earlier.
   */
  boundaryAtOrBefore(chars: number): Boundary {
    let tokens = 0;
    let start = 0;
    for (const segment of this.list) {
      const end = start + segment.text.length;
      if (end > chars) {
        const inside = this.tokensWithin(segment, chars - start);
        return { tokens: tokens + inside.tokens, chars: start + inside.chars };
      }
      tokens += segment.tokens.length;
      start = end;
    }
    return { tokens, chars: start };
  }

  /** Keep only what lies before `boundary` (a value returned by boundaryAtOrBefore). */
  truncate(boundary: Boundary): void {
    const kept: Segment[] = [];
    let tokens = 0;
    let chars = 0;
    for (const segment of this.list) {
      if (tokens + segment.tokens.length <= boundary.tokens && chars + segment.text.length <= boundary.chars) {
        kept.push(segment);
        tokens += segment.tokens.length;
        chars += segment.text.length;
        continue;
      }
      const partTokens = boundary.tokens - tokens;
      const partChars = boundary.chars - chars;
      if (partTokens > 0 || partChars > 0) {
        kept.push({ text: segment.text.slice(0, partChars), tokens: segment.tokens.slice(0, partTokens) });
      }
      break;
    }
    this.clear();
    for (const segment of kept) this.append(segment);
  }

  clear(): void {
    this.list = [];
    this.textCache = "";
    this.tokenCount = 0;
  }

  /**
   * Largest k such that the first k tokens decode to a prefix of the segment's text of at
   * most `limit` chars. A prefix that ends inside a multi-byte character decodes with a
   * trailing U+FFFD; the search ignores it (so the predicate stays monotonic) and the result
   * steps back to a whole character.
   */
  private tokensWithin(segment: Segment, limit: number): Boundary {
    const decode = (k: number) => this.tokenizer.decode(segment.tokens.slice(0, k));
    const complete = (text: string) => !text.endsWith(REPLACEMENT) || segment.text.startsWith(text);
    const fits = (k: number): boolean => {
      let text = decode(k);
      if (!complete(text)) text = text.slice(0, -1);
      return text.length <= limit && segment.text.startsWith(text);
    };
    let low = 0;
    let high = segment.tokens.length;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (fits(mid)) low = mid;
      else high = mid - 1;
    }
    while (low > 0 && !complete(decode(low))) low--;
    return { tokens: low, chars: decode(low).length };
  }
}
