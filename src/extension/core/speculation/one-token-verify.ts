// A state that can verify a batch, for every backend: one that cannot (none of ours today,
// but the speculative engine reports a reply loop for all its states) verifies one sampled
// token at a time. Correct, never faster: the measured verify cost then keeps `auto` from
// drafting.

import type { KvState, SamplingOptions } from "../engine";
import { CapacityError, EngineFailedError } from "../errors";

export type Verifiable = KvState & { verify: NonNullable<KvState["verify"]> };

export function withVerify(state: KvState): Verifiable {
  return state.verify ? (state as Verifiable) : new OneTokenAtATimeVerify(state);
}

/** verify() for a backend without a batch verify: one sampled evaluate per token. */
class OneTokenAtATimeVerify implements KvState {
  constructor(private readonly inner: KvState) {}
  get capacity(): number {
    return this.inner.capacity;
  }
  get length(): number {
    return this.inner.length;
  }
  evaluate(tokens: readonly number[], sample?: SamplingOptions): Promise<number | undefined> {
    return this.inner.evaluate(tokens, sample);
  }
  async verify(tokens: readonly number[], sample: SamplingOptions): Promise<number[]> {
    if (this.length + tokens.length > this.capacity) throw new CapacityError(this.length, tokens.length, this.capacity);
    const out: number[] = [];
    for (const token of tokens) {
      const next = await this.inner.evaluate([token], sample);
      if (next === undefined) throw new EngineFailedError("the backend sampled no token");
      out.push(next);
    }
    return out;
  }
  get generateReply(): KvState["generateReply"] {
    return this.inner.generateReply?.bind(this.inner);
  }
  get evaluateTopK(): KvState["evaluateTopK"] {
    return this.inner.evaluateTopK?.bind(this.inner);
  }
  truncate(length: number): Promise<void> {
    return this.inner.truncate(length);
  }
  reset(): Promise<void> {
    return this.inner.reset();
  }
  get saveSnapshot(): KvState["saveSnapshot"] {
    return this.inner.saveSnapshot?.bind(this.inner);
  }
  get loadSnapshot(): KvState["loadSnapshot"] {
    return this.inner.loadSnapshot?.bind(this.inner);
  }
  get saveSnapshotDelta(): KvState["saveSnapshotDelta"] {
    return this.inner.saveSnapshotDelta?.bind(this.inner);
  }
  get appendSnapshot(): KvState["appendSnapshot"] {
    return this.inner.appendSnapshot?.bind(this.inner);
  }
  get probeCache(): KvState["probeCache"] {
    return this.inner.probeCache?.bind(this.inner);
  }
  dispose(): Promise<void> {
    return this.inner.dispose();
  }
}

