// KvState over one native session (one MLState). The native side already runs every call
// on the session's serial worker and refuses overlap; this class adds the contract's
// checks that must happen before the addon is called, and maps errors.
import type { CacheProbe, KvState, SamplingOptions } from "../../core/engine";
import { CapacityError } from "../../core/errors";
import { ExclusiveAccess } from "../../core/exclusive-access";
import type { NativeSampling, NativeState } from "./addon";
import { fromNativeError } from "./native-errors";

function toNativeSampling(sample: SamplingOptions): NativeSampling {
  return { temperature: sample.temperature, topP: sample.topP, topK: sample.topK, seed: sample.seed };
}

export class CoreMLState implements KvState {
  private disposed = false;
  private readonly access = new ExclusiveAccess("Core ML session", () => this.disposed, fromNativeError);
  constructor(
    private readonly session: NativeState,
    private readonly onDispose: (state: CoreMLState) => void,
  ) {}

  get capacity(): number {
    return this.session.capacity;
  }

  /** The native position: after a failure mid-prefill it counts the chunks that completed. */
  get length(): number {
    return this.session.position;
  }

  async evaluate(tokens: readonly number[], sample?: SamplingOptions): Promise<number | undefined> {
    return this.run(async () => {
      // Refused before the state is touched (the addon checks again natively).
      if (this.length + tokens.length > this.capacity) {
        throw new CapacityError(this.length, tokens.length, this.capacity);
      }
      const next = await this.session.evaluate(Int32Array.from(tokens), sample ? toNativeSampling(sample) : null);
      return sample ? next : undefined;
    });
  }

  /** The k most likely next tokens with probabilities (softmax of the raw logits). */
  async evaluateTopK(tokens: readonly number[], k: number): Promise<Array<readonly [token: number, probability: number]>> {
    return this.run(async () => {
      if (this.length + tokens.length > this.capacity) {
        throw new CapacityError(this.length, tokens.length, this.capacity);
      }
      return this.session.evaluateTopK(Int32Array.from(tokens), k);
    });
  }

  /**
   * Speculative decoding's batch check: one token per input token, sampled from its own
   * logits row natively (result[i] follows tokens[0..i]). The caller truncates the tail it
   * rejects. A model whose logits hold only the last position is verified token by token
   * natively: correct, without the speedup (the measured verify cost then says so).
   */
  async verify(tokens: readonly number[], sample: SamplingOptions): Promise<number[]> {
    return this.run(async () => {
      if (this.length + tokens.length > this.capacity) {
        throw new CapacityError(this.length, tokens.length, this.capacity);
      }
      return [...(await this.session.verify(Int32Array.from(tokens), toNativeSampling(sample)))];
    });
  }

  /**
   * Moves the position back; the buffers are left as they are. That is exact: the next
   * write starts at the new position and its causal mask [1,1,q,end] hides every slot
   * at or past `end`, and each row sees only slots up to its own position, so a stale
   * slot is always overwritten before anything can attend to it.
   */
  async truncate(length: number): Promise<void> {
    await this.run(() => this.session.truncate(length));
  }

  /** Core ML has no reset: the native session swaps in a new, zeroed MLState. */
  async reset(): Promise<void> {
    await this.run(() => this.session.reset());
  }

  /**
   * Writes the MLState's buffers and `tokens` (which must be exactly what it holds) to
   * `path`; resolves to the file's size. The caller renames the file into place.
   */
  async saveSnapshot(path: string, tokens: readonly number[]): Promise<number> {
    return this.run(() => this.session.saveState(path, Int32Array.from(tokens)));
  }

  /**
   * Replaces the state with the one at `path` and resolves to the tokens it holds. A file
   * of another model, shape or format rejects with SnapshotMismatchError and the state is
   * left as it was.
   */
  async loadSnapshot(path: string): Promise<readonly number[]> {
    return this.run(async () => [...(await this.session.loadState(path))]);
  }

  /**
   * The native session's position (native/src/core/session.h, mirrored by the addon after each
   * call on its worker): an MLState has no position of its own, the causal mask's end is this
   * number. Independent of the ledger; the same count `length` reads, so a Core ML cache that
   * drifted from it shows only in the logits check.
   */
  async probeCache(): Promise<CacheProbe> {
    return this.run(async () => ({ held: this.session.position, source: "Core ML session position (native)" }));
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.onDispose(this);
    await this.session.dispose();
  }

  private run<T>(call: () => Promise<T>): Promise<T> {
    return this.access.run(call);
  }
}
