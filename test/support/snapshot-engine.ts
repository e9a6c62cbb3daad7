// Test double of an engine whose states can be snapshotted (the boundary the pool and the
// snapshot store write through): FakeEngine's hash "model", plus saveSnapshot/loadSnapshot
// that write the cached tokens to a real file and read them back. `beforeSave`/`beforeLoad`
// let a test hold a save or a load (a deferred promise), to order it against a delete or an
// eviction.

import { writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Engine } from "../../src/extension/core/engine";
import { ByteTokenizer, CHATML_TEMPLATE, HashState } from "./fake-engine";

export class SnapshotHashState extends HashState {
  constructor(
    capacity: number,
    replyLength: number,
    private readonly hooks: { beforeSave?: (path: string) => Promise<void> | void; beforeLoad?: (path: string) => Promise<void> | void },
  ) {
    super(capacity, replyLength);
  }

  async saveSnapshot(path: string, tokens: readonly number[]): Promise<number> {
    await this.hooks.beforeSave?.(path);
    const body = JSON.stringify({ tokens, cache: this.cache });
    await writeFile(path, body, "utf8");
    return Buffer.byteLength(body);
  }

  /** Set when the engine writes deltas (SnapshotEngine's `deltas` option); `refuseDeltas` makes it reject them as a sliding-window model would. */
  deltas = false;
  refuseDeltas = false;
  /** Thrown by the next delta save only (an engine crash in the middle of one, say). */
  failNextDelta: Error | undefined;
  deltaCalls = 0;

  get saveSnapshotDelta(): ((path: string, from: number, tokens: readonly number[]) => Promise<number>) | undefined {
    if (!this.deltas) return undefined;
    return async (path, from, tokens) => {
      this.deltaCalls++;
      if (this.refuseDeltas) throw new Error("this model uses sliding-window attention: its snapshots are whole files");
      const failure = this.failNextDelta;
      this.failNextDelta = undefined;
      if (failure) throw failure;
      await this.hooks.beforeSave?.(path);
      if (this.cache.length !== from + tokens.length) throw new Error("the cache does not end where the delta's tokens do");
      const body = JSON.stringify({ from, tokens, cache: this.cache.slice(from) });
      await writeFile(path, body, "utf8");
      return Buffer.byteLength(body);
    };
  }

  get appendSnapshot(): ((path: string) => Promise<readonly number[]>) | undefined {
    if (!this.deltas) return undefined;
    return async (path) => {
      const { from, tokens, cache } = JSON.parse(await readFile(path, "utf8")) as { from: number; tokens: number[]; cache: number[] };
      if (from !== this.cache.length) {
        this.cache.length = 0;
        throw new Error("the delta does not start where the cache ends");
      }
      this.cache.push(...cache);
      return tokens;
    };
  }

  async loadSnapshot(path: string): Promise<readonly number[]> {
    await this.hooks.beforeLoad?.(path);
    const { tokens, cache } = JSON.parse(await readFile(path, "utf8")) as { tokens: number[]; cache: number[] };
    this.cache.length = 0;
    this.cache.push(...cache);
    return tokens;
  }
}

/** FakeEngine with snapshot-capable states and a real model file (the snapshot store fingerprints it). */
export class SnapshotEngine implements Engine {
  readonly tokenizer = new ByteTokenizer();
  readonly chatTemplate = CHATML_TEMPLATE;
  readonly states: SnapshotHashState[] = [];
  readonly info;
  /** Set by a test to hold or observe each save, each load. */
  beforeSave: ((path: string) => Promise<void> | void) | undefined;
  beforeLoad: ((path: string) => Promise<void> | void) | undefined;

  constructor(
    dir: string,
    readonly capacity = 4096,
    private readonly replyLength = 12,
    /** States write and append deltas (incremental snapshots). */
    private readonly deltas = false,
  ) {
    const modelPath = join(dir, "model.bin");
    writeFileSync(modelPath, "a test double's model file");
    this.info = { backend: "llamacpp" as const, modelPath, modelName: "snapshot double", capacity, details: "test double" };
  }

  async createState(): Promise<SnapshotHashState> {
    const state = new SnapshotHashState(this.capacity, this.replyLength, { beforeSave: (path) => this.beforeSave?.(path), beforeLoad: (path) => this.beforeLoad?.(path) });
    state.deltas = this.deltas;
    this.states.push(state);
    return state;
  }

  async dispose(): Promise<void> {}
}
