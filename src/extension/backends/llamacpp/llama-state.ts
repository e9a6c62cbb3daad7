// One llama.cpp context sequence as a KvState. Each state has its own context so that
// panels never share KV memory; the context shift is replaced by a strategy that throws,
// so llama.cpp can never silently drop the oldest tokens (invariant 5).

import type { KvState, SamplingOptions } from "../../core/engine";
import { CapacityError, ConcurrentAccessError, DisposedError, EngineFailedError } from "../../core/errors";
import type { LlamaContext, LlamaContextSequence, LlamaModel, Token } from "./node-llama-cpp";

export interface LlamaStateOptions {
  readonly contextSize: number;
  readonly threads: number;
  readonly batchSize: number;
}

export class LlamaKvState implements KvState {
  private busy = false;
  private disposed = false;

  private constructor(
    private readonly context: LlamaContext,
    private readonly sequence: LlamaContextSequence,
  ) {}

  static async create(model: LlamaModel, options: LlamaStateOptions): Promise<LlamaKvState> {
    const context = await model.createContext({
      contextSize: options.contextSize,
      threads: options.threads,
      batchSize: options.batchSize,
      sequences: 1,
    });
    const sequence = context.getSequence({
      contextShift: {
        strategy: () => {
          throw new EngineFailedError("llama.cpp context is full; refusing to shift it");
        },
      },
    });
    return new LlamaKvState(context, sequence);
  }

  get capacity(): number {
    return this.sequence.contextSize;
  }

  get length(): number {
    return this.sequence.nextTokenIndex;
  }

  evaluate(tokens: readonly number[], sample?: SamplingOptions): Promise<number | undefined> {
    return this.exclusive(async () => {
      if (tokens.length === 0) return undefined;
      if (this.length + tokens.length > this.capacity) {
        throw new CapacityError(this.length, tokens.length, this.capacity);
      }
      const input = tokens.map((t) => t as Token);
      const last = input.length - 1;
      const items: Parameters<LlamaContextSequence["controlledEvaluate"]>[0] = input.slice(0, last);
      if (sample) {
        items.push([
          input[last],
          {
            generateNext: {
              token: true,
              options: {
                temperature: sample.temperature,
                topP: sample.topP,
                topK: sample.topK,
                seed: sample.seed,
              },
            },
          },
        ]);
      } else {
        items.push(input[last]);
      }
      const output = await this.sequence.controlledEvaluate(items);
      if (!sample) return undefined;
      const next = output[last]?.next.token;
      if (next === undefined || next === null) throw new EngineFailedError("llama.cpp sampled no token");
      return next;
    });
  }

  evaluateTopK(tokens: readonly number[], k: number): Promise<Array<readonly [number, number]>> {
    return this.exclusive(async () => {
      if (tokens.length === 0) throw new EngineFailedError("evaluateTopK needs at least one token");
      if (this.length + tokens.length > this.capacity) {
        throw new CapacityError(this.length, tokens.length, this.capacity);
      }
      const input = tokens.map((t) => t as Token);
      const last = input.length - 1;
      const items: Parameters<LlamaContextSequence["controlledEvaluate"]>[0] = input.slice(0, last);
      items.push([input[last], { generateNext: { probabilities: true } }]);
      const output = await this.sequence.controlledEvaluate(items);
      const probabilities = output[last]?.next.probabilities;
      if (!probabilities) throw new EngineFailedError("llama.cpp returned no probabilities");
      const top: Array<readonly [number, number]> = [];
      for (const [token, probability] of probabilities) {
        top.push([token, probability]);
        if (top.length >= k) break;
      }
      return top;
    });
  }

  truncate(length: number): Promise<void> {
    return this.exclusive(async () => {
      const end = this.sequence.nextTokenIndex;
      if (length >= end) return;
      await this.sequence.eraseContextTokenRanges([{ start: length, end }]);
    });
  }

  reset(): Promise<void> {
    return this.exclusive(() => this.sequence.clearHistory());
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.sequence.dispose();
    await this.context.dispose();
  }

  private async exclusive<T>(operation: () => Promise<T>): Promise<T> {
    if (this.disposed) throw new DisposedError("llama.cpp state");
    if (this.busy) throw new ConcurrentAccessError();
    this.busy = true;
    try {
      return await operation();
    } catch (error) {
      if (error instanceof Error && error.name.endsWith("Error") && "code" in error) throw error;
      throw new EngineFailedError(`llama.cpp: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    } finally {
      this.busy = false;
    }
  }
}
