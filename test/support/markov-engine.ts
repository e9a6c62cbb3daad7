// Test double with known next-token distributions, for speculative decoding: a first-order
// Markov chain over eight letters ('a'..'h', byte ids 97..104) plus EOS, so greedy replies
// repeat (prompt lookup finds them) and sampled replies have a transition table the test
// can compare frequencies with. Sampling draws from a seeded generator per state. It can
// verify a batch (KvState.verify) and, optionally, run its own reply loop.

import type { CacheProbe, KvState, ReplyOptions, ReplyRun, SamplingOptions } from "../../src/extension/core/engine";
import { CapacityError, ConcurrentAccessError, DisposedError } from "../../src/extension/core/errors";
import { EOS } from "./fake-engine";
import { seededRandom } from "./random";

export const LETTERS = [97, 98, 99, 100, 101, 102, 103, 104];
const OUTCOMES = [...LETTERS, EOS];

/** P[next | last] for each letter as last (EOS has probability `eos`); any other last token behaves like 'a'. */
export function transitions(last: number, eos = 0.02): number[] {
  const row = LETTERS.indexOf(last) === -1 ? 0 : LETTERS.indexOf(last);
  // A dominant successor (greedy follows a cycle) and a spread over the rest.
  const weights = LETTERS.map((_, j) => (j === (row * 3 + 1) % LETTERS.length ? 6 : 1 + ((row + j) % 3)));
  const total = weights.reduce((a, b) => a + b, 0);
  return [...weights.map((w) => ((1 - eos) * w) / total), eos];
}

export class MarkovState implements KvState {
  readonly cache: number[] = [];
  disposed = false;
  private busy = false;
  private readonly random: () => number;
  /** Batches handed to verify(), for tests that look at what was verified. */
  readonly verifyBatches: number[] = [];
  /** Called before each backend call; lets tests block or fail one. */
  beforeCall: ((op: "evaluate" | "verify" | "reply", tokens: readonly number[]) => Promise<void> | void) | undefined;
  readonly generateReply?: (tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void) => ReplyRun;

  constructor(
    readonly capacity: number,
    seed: number,
    replyLoop = false,
    private readonly eos = 0.02,
  ) {
    this.random = seededRandom(seed);
    if (replyLoop) this.generateReply = (tokens, options, onToken) => this.replyLoop(tokens, options, onToken);
  }

  get length(): number {
    return this.cache.length;
  }

  next(sample: SamplingOptions | undefined): number {
    const p = transitions(this.cache[this.cache.length - 1], this.eos);
    if (!sample || sample.temperature === 0) return OUTCOMES[p.indexOf(Math.max(...p))];
    let r = this.random();
    for (let i = 0; i < p.length; i++) {
      r -= p[i];
      if (r < 0) return OUTCOMES[i];
    }
    return OUTCOMES[OUTCOMES.length - 1];
  }

  evaluate(tokens: readonly number[], sample?: SamplingOptions): Promise<number | undefined> {
    return this.exclusive("evaluate", tokens, async () => {
      this.cache.push(...tokens);
      return sample ? this.next(sample) : undefined;
    });
  }

  verify(tokens: readonly number[], sample: SamplingOptions): Promise<number[]> {
    return this.exclusive("verify", tokens, async () => {
      this.verifyBatches.push(tokens.length);
      const out: number[] = [];
      for (const token of tokens) {
        this.cache.push(token);
        out.push(this.next(sample));
      }
      return out;
    });
  }

  private replyLoop(tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void): ReplyRun {
    let cancelled = false;
    const done = this.exclusive("reply", tokens, async () => {
      if (this.cache.length + tokens.length + options.maxTokens - 1 > this.capacity) {
        throw new CapacityError(this.cache.length, tokens.length + options.maxTokens - 1, this.capacity);
      }
      this.cache.push(...tokens);
      for (let sampled = 1; ; sampled++) {
        const token = this.next(options.sample);
        onToken(token);
        if (token === EOS || sampled >= options.maxTokens) break;
        await new Promise((r) => setImmediate(r)); // a cancel arrives between tokens
        if (cancelled) break;
        this.cache.push(token);
      }
      return this.cache.length;
    }, false);
    return { done, cancel: () => (cancelled = true) };
  }

  async truncate(length: number): Promise<void> {
    this.cache.length = Math.min(this.cache.length, length);
  }

  async reset(): Promise<void> {
    this.cache.length = 0;
  }

  /** The double's own cells (its `cache`), the only count it has: a test that erases one behind the session's back sees it here. */
  async probeCache(): Promise<CacheProbe> {
    return { held: this.cache.length, source: "test double's cache" };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
  }

  private async exclusive<T>(op: "evaluate" | "verify" | "reply", tokens: readonly number[], body: () => Promise<T>, checkCapacity = true): Promise<T> {
    if (this.disposed) throw new DisposedError("state");
    if (this.busy) throw new ConcurrentAccessError();
    if (checkCapacity && this.cache.length + tokens.length > this.capacity) throw new CapacityError(this.cache.length, tokens.length, this.capacity);
    this.busy = true;
    try {
      await this.beforeCall?.(op, tokens);
      await new Promise((r) => setImmediate(r));
      return await body();
    } finally {
      this.busy = false;
    }
  }
}
