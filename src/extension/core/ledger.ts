// The exact token list that a session's KV cache holds, in order: the single source of
// truth for "what the model has seen". `evaluated` marks how much of it is already in
// the backend state; the rest is pending (normally the last prompt token, held back so
// that generation can sample from its logits).

export class Ledger {
  private readonly list: number[] = [];
  private evaluatedCount = 0;

  get length(): number {
    return this.list.length;
  }

  get evaluated(): number {
    return this.evaluatedCount;
  }

  get tokens(): readonly number[] {
    return this.list;
  }

  pending(): number[] {
    return this.list.slice(this.evaluatedCount);
  }

  append(tokens: readonly number[]): void {
    for (const token of tokens) this.list.push(token);
  }

  markEvaluated(count: number): void {
    if (count < 0 || this.evaluatedCount + count > this.list.length) {
      throw new RangeError(`cannot mark ${count} tokens evaluated (evaluated ${this.evaluatedCount} of ${this.list.length})`);
    }
    this.evaluatedCount += count;
  }

  /** Keep only the first `length` tokens. */
  truncate(length: number): void {
    if (length > this.list.length) throw new RangeError(`cannot truncate ledger of ${this.list.length} to ${length}`);
    this.list.length = length;
    this.evaluatedCount = Math.min(this.evaluatedCount, length);
  }

  /** The state was cut back to `length` tokens: later tokens are pending again. */
  unevaluateFrom(length: number): void {
    this.evaluatedCount = Math.min(this.evaluatedCount, length);
  }

  /** The backend state was discarded: every token is pending again (a lazy re-prefill). */
  forgetEvaluated(): void {
    this.evaluatedCount = 0;
  }

  clear(): void {
    this.list.length = 0;
    this.evaluatedCount = 0;
  }
}
