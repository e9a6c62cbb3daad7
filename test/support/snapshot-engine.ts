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
  ) {
    const modelPath = join(dir, "model.bin");
    writeFileSync(modelPath, "a test double's model file");
    this.info = { backend: "llamacpp" as const, modelPath, modelName: "snapshot double", capacity, details: "test double" };
  }

  async createState(): Promise<SnapshotHashState> {
    const state = new SnapshotHashState(this.capacity, this.replyLength, { beforeSave: (path) => this.beforeSave?.(path), beforeLoad: (path) => this.beforeLoad?.(path) });
    this.states.push(state);
    return state;
  }

  async dispose(): Promise<void> {}
}
