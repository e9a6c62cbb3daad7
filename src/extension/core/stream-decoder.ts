// Streaming detokenization that never splits a UTF-8 character: a token that ends in the
// middle of a multi-byte character decodes to U+FFFD, so text is held back until the
// following token completes it (at most 4 bytes, so at most a few tokens).

import type { Tokenizer } from "./engine";

const REPLACEMENT = "\uFFFD";
const MAX_HELD_TOKENS = 4;
const COMPACT_AFTER = 32;
const KEEP_FOR_CONTEXT = 4;

export class StreamDecoder {
  private window: number[] = [];
  private emittedChars = 0;
  private held = 0;

  constructor(private readonly tokenizer: Tokenizer) {}

  /** Returns the text that became final with this token (possibly empty). */
  push(token: number): string {
    this.window.push(token);
    const text = this.tokenizer.decode(this.window);
    if (text.endsWith(REPLACEMENT) && this.held < MAX_HELD_TOKENS) {
      this.held++;
      return "";
    }
    this.held = 0;
    const fresh = text.slice(this.emittedChars);
    this.emittedChars = text.length;
    if (this.window.length > COMPACT_AFTER) this.compact();
    return fresh;
  }

  /** Whatever is still held back (a truncated character at the end of a reply). */
  flush(): string {
    const text = this.tokenizer.decode(this.window);
    const rest = text.slice(this.emittedChars);
    this.window = [];
    this.emittedChars = 0;
    this.held = 0;
    return rest;
  }

  private compact(): void {
    // Keep a few tokens so decoders that look at the previous token (leading spaces in
    // SentencePiece) still see context.
    this.window = this.window.slice(-KEEP_FOR_CONTEXT);
    this.emittedChars = this.tokenizer.decode(this.window).length;
  }
}
