// Test double at the engine boundary that wraps a REAL engine: it forwards every call and
// records them, flagging any overlap of two calls on one state (invariant 4) and counting
// tokens evaluated (invariant 3).

import type { Engine, KvState, ReplyOptions, ReplyRun, SamplingOptions } from "../../src/extension/core/engine";
import { replyRunStartingLater } from "../../src/extension/core/reply-run";

export interface StateCall {
  readonly kind: "evaluate" | "truncate" | "reset";
  /** For generateReply: what the backend's reply loop wrote (known once it stops). */
  tokens: number;
  readonly sampled: boolean;
}

export interface RecordedDistribution {
  /** Cache length after the evaluation: the distribution is for the token at this index. */
  readonly position: number;
  readonly top: ReadonlyArray<readonly [number, number]>;
}

export class InstrumentedState implements KvState {
  active = 0;
  overlaps = 0;
  readonly calls: StateCall[] = [];
  /** When set, greedy samples go through evaluateTopK and every distribution is kept. */
  recordDistributions = false;
  readonly distributions: RecordedDistribution[] = [];

  constructor(readonly inner: KvState) {}

  get capacity(): number {
    return this.inner.capacity;
  }

  get length(): number {
    return this.inner.length;
  }

  evaluatedTokens(sinceCall = 0): number {
    return this.calls.slice(sinceCall).reduce((sum, c) => sum + (c.kind === "evaluate" ? c.tokens : 0), 0);
  }

  evaluate(tokens: readonly number[], sample?: SamplingOptions): Promise<number | undefined> {
    return this.track({ kind: "evaluate", tokens: tokens.length, sampled: !!sample }, async () => {
      if (!sample || sample.temperature !== 0 || !this.recordDistributions || !this.inner.evaluateTopK) {
        return this.inner.evaluate(tokens, sample);
      }
      const top = await this.inner.evaluateTopK(tokens, 5);
      this.distributions.push({ position: this.inner.length, top });
      return top[0][0];
    });
  }

  /**
   * The backend's reply loop when it has one, counted as one evaluate call of everything it
   * wrote; absent while distributions are recorded (they need one evaluateTopK per token).
   */
  get generateReply(): ((tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void) => ReplyRun) | undefined {
    const inner = this.inner;
    if (!inner.generateReply || this.recordDistributions) return undefined;
    return (tokens, options, onToken) => {
      const call: StateCall = { kind: "evaluate", tokens: 0, sampled: true };
      const before = inner.length;
      return replyRunStartingLater((begin) =>
        this.track(call, async () => {
          const length = await begin(inner.generateReply!(tokens, options, onToken)).done;
          call.tokens = length - before;
          return length;
        }),
      );
    };
  }

  evaluateTopK(tokens: readonly number[], k: number): Promise<Array<readonly [number, number]>> {
    const inner = this.inner;
    if (!inner.evaluateTopK) return Promise.reject(new Error("backend has no evaluateTopK"));
    return this.track({ kind: "evaluate", tokens: tokens.length, sampled: true }, () => inner.evaluateTopK!(tokens, k));
  }

  truncate(length: number): Promise<void> {
    return this.track({ kind: "truncate", tokens: length, sampled: false }, () => this.inner.truncate(length));
  }

  reset(): Promise<void> {
    return this.track({ kind: "reset", tokens: 0, sampled: false }, () => this.inner.reset());
  }

  get saveSnapshot(): KvState["saveSnapshot"] {
    const save = this.inner.saveSnapshot;
    return save && ((path, tokens) => this.track({ kind: "evaluate", tokens: 0, sampled: false }, () => save.call(this.inner, path, tokens)));
  }

  get loadSnapshot(): KvState["loadSnapshot"] {
    const load = this.inner.loadSnapshot;
    return load && ((path) => this.track({ kind: "reset", tokens: 0, sampled: false }, () => load.call(this.inner, path)));
  }

  /** The backend's own count, forwarded (a read: tracked for overlaps, not counted as a call). */
  get probeCache(): KvState["probeCache"] {
    const probe = this.inner.probeCache;
    return probe && (() => this.track(undefined, () => probe.call(this.inner)));
  }

  dispose(): Promise<void> {
    return this.inner.dispose();
  }

  private async track<T>(call: StateCall | undefined, run: () => Promise<T>): Promise<T> {
    this.active++;
    if (this.active > 1) this.overlaps++;
    if (call) this.calls.push(call);
    try {
      // Yield once so that an overlapping caller would get in while this call is active.
      await new Promise((resolve) => setImmediate(resolve));
      return await run();
    } finally {
      this.active--;
    }
  }
}

export class InstrumentedEngine implements Engine {
  readonly states: InstrumentedState[] = [];

  constructor(private readonly inner: Engine) {}

  get info() {
    return this.inner.info;
  }
  get tokenizer() {
    return this.inner.tokenizer;
  }
  get chatTemplate() {
    return this.inner.chatTemplate;
  }
  get replyLoop() {
    return this.inner.replyLoop;
  }

  async createState(): Promise<InstrumentedState> {
    const state = new InstrumentedState(await this.inner.createState());
    this.states.push(state);
    return state;
  }

  dispose(): Promise<void> {
    return this.inner.dispose();
  }
}

/** Greedy continuation of a state whose cache holds exactly `ledger` (re-samples the last token). */
export async function greedyFromState(state: KvState, ledger: readonly number[], steps: number): Promise<number[]> {
  if (state.length !== ledger.length) throw new Error(`state holds ${state.length} tokens, ledger ${ledger.length}`);
  await state.truncate(ledger.length - 1);
  const out = await greedySteps(state, [ledger[ledger.length - 1]], steps);
  await state.truncate(ledger.length);
  return out;
}

/** Feeds `input`, then `steps` greedy tokens, each fed back; returns the tokens chosen. */
async function greedySteps(state: KvState, input: readonly number[], steps: number): Promise<number[]> {
  let next = (await state.evaluate(input, { temperature: 0 }))!;
  const out: number[] = [];
  for (let i = 0; i < steps; i++) {
    out.push(next);
    next = (await state.evaluate([next], { temperature: 0 }))!;
  }
  return out;
}

/** Greedy continuation of a fresh state fed `ledger` in one prefill. */
export async function greedyFromFresh(engine: Engine, ledger: readonly number[], steps: number): Promise<number[]> {
  const state = await engine.createState();
  try {
    return await greedySteps(state, ledger, steps);
  } finally {
    await state.dispose();
  }
}

/** Greedy top-k distributions along a fixed token sequence, computed by a fresh state fed it in one prefill. */
export async function freshDistributionAt(engine: Engine, prefix: readonly number[]): Promise<ReadonlyArray<readonly [number, number]>> {
  const state = await engine.createState();
  try {
    if (!state.evaluateTopK) throw new Error("backend has no evaluateTopK");
    return await state.evaluateTopK(prefix, 5);
  } finally {
    await state.dispose();
  }
}

/** Total variation distance between two top-k distributions (mass outside the union counts as disagreement). */
export function totalVariation(a: ReadonlyArray<readonly [number, number]>, b: ReadonlyArray<readonly [number, number]>): number {
  const pa = new Map(a);
  const pb = new Map(b);
  let sum = 0;
  for (const token of new Set([...pa.keys(), ...pb.keys()])) sum += Math.abs((pa.get(token) ?? 0) - (pb.get(token) ?? 0));
  return sum / 2;
}

export function topGap(top: ReadonlyArray<readonly [number, number]>): number {
  return top.length < 2 ? 1 : top[0][1] - top[1][1];
}
