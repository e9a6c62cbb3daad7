// A draft model as a drafter: a small model with the target's vocabulary whose own KV state
// follows the target's ledger. Before each draft its cache is brought to the target's tokens
// by the longest common prefix (exact tail erase of what the target rejected or rewound,
// then a prefill of what is new), so it prefills the same new tokens, rewinds with the
// target and resets with it, without a second ledger to keep in step. It drafts greedily:
// a deterministic draft keeps speculative sampling exact (see speculative-state.ts).

import type { KvState } from "../engine";
import type { Drafter } from "./drafter";
import type { TokenMirror } from "./token-mirror";

const GREEDY = { temperature: 0 } as const;

export class DraftModelDrafter implements Drafter {
  readonly kind = "draft";
  /** What the draft state holds, in order. */
  private held: number[] = [];

  constructor(
    private readonly state: KvState,
    private readonly chunkSize = 256,
  ) {}

  async draft(mirror: TokenMirror, tail: readonly number[], max: number): Promise<number[]> {
    if (!mirror.trusted || max <= 0) return [];
    const context = [...mirror.tokens, ...tail];
    if (context.length === 0) return [];
    // Room for the context and the drafted tokens in the draft model's own cache.
    if (context.length + max > this.state.capacity) return [];
    // The last context token is evaluated with sampling, so it must not be in the cache yet.
    const keep = commonPrefix(this.held, context, context.length - 1);
    if (this.held.length > keep || this.state.length !== this.held.length) {
      if (this.state.length !== this.held.length) {
        await this.state.reset();
        this.held = [];
      } else {
        await this.state.truncate(keep);
        this.held.length = keep;
      }
    }
    for (let i = this.held.length; i < context.length - 1; i += this.chunkSize) {
      const chunk = context.slice(i, Math.min(context.length - 1, i + this.chunkSize));
      await this.state.evaluate(chunk);
      this.held.push(...chunk);
    }
    const last = context[context.length - 1];
    if (this.state.generateReply) {
      // The draft model's own reply loop: no round trip per drafted token.
      const drafted: number[] = [];
      const length = await this.state.generateReply([last], { sample: GREEDY, maxTokens: max }, (token) => drafted.push(token)).done;
      this.held.push(last, ...drafted.slice(0, -1));
      if (length !== this.held.length) this.held.length = Math.min(this.held.length, length);
      return drafted.slice(0, max);
    }
    const drafted: number[] = [];
    let next = last;
    while (drafted.length < max) {
      const token = await this.state.evaluate([next], GREEDY);
      this.held.push(next);
      if (token === undefined) break;
      drafted.push(token);
      next = token;
    }
    return drafted;
  }

  async reset(): Promise<void> {
    await this.state.reset();
    this.held = [];
  }

  async dispose(): Promise<void> {
    await this.state.dispose();
  }
}

function commonPrefix(a: readonly number[], b: readonly number[], limit: number): number {
  const n = Math.min(a.length, b.length, limit);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
