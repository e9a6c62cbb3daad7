// `node --import tsx test/bench/snapshot-cost.ts [--contexts 4096,32768] [--turns 5] [--threads 2]`:
// what a whole-file KV snapshot rewrite costs per turn (a chat panel saves its whole cache
// after every completed turn), on the default model through llama.cpp (SmolLM2-135M Q4_1).
//
// - Product path (`store`): a Conversation on LlamaEngine (8k context) filled to about N
//   tokens, then per turn a short question and a reply followed by SnapshotStore.save (the
//   sequence state file, the description with the conversation, renames, the disk budget).
//   Only below the model's training context (LlamaEngine caps the context there: 8,192).
// - Raw state file (`state`): the same llama.cpp sequence state written by LlamaKvState's
//   saveSnapshot (what the store calls), on a context made directly at N tokens (past the
//   training context for 32k: the cache's size does not depend on what the model makes of
//   it), filled to N − turns × 64 tokens, then per turn 64 tokens appended and the whole
//   file written again.
// - File of that size (`write`): a buffer as large as the state file at N tokens (bytes per
//   token measured on the smallest context) written and renamed into place per turn: the
//   same bytes through the same disk, for contexts too slow to fill here (past
//   `--fill-limit` tokens only this row is measured; below it, it checks the proxy).
// - Delta (`delta`, our llama.cpp build): the same turn's 64 new cells alone, as the store
//   writes them after its first whole save (KvState.saveSnapshotDelta).
// Per turn: milliseconds to write, MB written. Medians over the turns, with the spread.
// The writes land in the page cache, as the product's do (no fsync): the figures are what a
// save costs the engine process and the disk bandwidth it takes afterwards.

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { LlamaEngine } from "../../src/extension/backends/llamacpp/llama-engine";
import { LlamaKvState } from "../../src/extension/backends/llamacpp/llama-state";
import { getLlamaRuntime } from "../../src/extension/backends/llamacpp/node-llama-cpp";
import { Conversation } from "../../src/extension/core/conversation";
import { SnapshotStore } from "../../src/extension/snapshots/snapshot-store";
import { defaultModelFile } from "../support/default-model";

const { values } = parseArgs({
  options: {
    contexts: { type: "string", default: "4096,32768" },
    turns: { type: "string", default: "5" },
    threads: { type: "string", default: "2" },
    "fill-limit": { type: "string", default: "8192" },
  },
});
const contexts = values.contexts.split(",").map(Number);
const turns = Number(values.turns);
const threads = Number(values.threads);
const fillLimit = Number(values["fill-limit"]);
const TURN_TOKENS = 64;
const MB = 1024 * 1024;
/** The default model's training context: LlamaEngine's cap, so the product path stops there. */
const STORE_CONTEXT = 8192;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;
const FILLER =
  "Caching in a compiler keeps what it already computed: parsed modules, type information, " +
  "generated code. When a file changes, only what depends on it is computed again. ";

interface Row {
  readonly path: "store" | "state" | "delta" | "write";
  readonly tokens: number;
  readonly ms: number[];
  readonly mb: number[];
  readonly metaKb?: number[];
}

function report(row: Row): void {
  const meta = row.metaKb ? `, description ${median(row.metaKb).toFixed(0)} KB` : "";
  console.log(
    `${row.path.padEnd(5)} ${String(row.tokens).padStart(6)} tokens: ${median(row.mb).toFixed(1)} MB per turn${meta}, ` +
      `${median(row.ms).toFixed(0)} ms per turn (spread ${spread(row.ms)} ms over ${row.ms.length} turns), ` +
      `${(median(row.mb) / (median(row.ms) / 1000)).toFixed(0)} MB/s`,
  );
}

/** The product's own save after each turn of a chat holding about `target` tokens (on an 8k context, so no overflow runs). */
async function storePath(target: number, root: string): Promise<Row> {
  const engine = await LlamaEngine.load({ modelPath: defaultModelFile(), contextSize: STORE_CONTEXT, threads });
  const store = new SnapshotStore(join(root, `store-${target}`));
  const chat = await Conversation.create(engine, { turn: { maxTokens: 16 } });
  const fill = engine.tokenizer.encode(FILLER, { specials: false }).length;
  const room = turns * (TURN_TOKENS + 48);
  const filling = performance.now();
  while (chat.position < target - room - 64) {
    const repeats = Math.max(1, Math.min(Math.floor(1000 / fill), Math.floor((target - room - chat.position) / fill)));
    await chat.send({ text: FILLER.repeat(repeats) });
  }
  console.log(`  (filled ${chat.position} tokens in ${((performance.now() - filling) / 1000).toFixed(0)} s)`);
  const row: Row = { path: "store", tokens: 0, ms: [], mb: [], metaKb: [] };
  // The first save writes the whole cache (not counted, as a chat's first save after filling); the turns' saves follow it.
  await store.save("bench", chat);
  let deltasBefore = 0;
  for (let i = 0; i < turns; i++) {
    await chat.send({ text: `Question ${i + 1}: name one more thing a compiler caches.` });
    const started = performance.now();
    const meta = await store.save("bench", chat);
    row.ms.push(performance.now() - started);
    if (!meta) throw new Error("no snapshot written");
    // What this save wrote: its delta when it added one (incremental), else the whole cache file.
    const added = (meta.deltas?.length ?? 0) > deltasBefore ? meta.deltas!.at(-1)!.bytes : meta.cacheBytes;
    deltasBefore = meta.deltas?.length ?? 0;
    row.mb.push(added / MB);
    row.metaKb!.push(statSync(join(root, `store-${target}`, "bench.json")).size / 1024);
  }
  const tokens = chat.position;
  await chat.dispose();
  await engine.dispose();
  return { ...row, tokens };
}

/** The sequence state file alone, on a context of exactly `target` tokens: the whole file per turn, and (our build) the turn's cells only. */
async function statePath(target: number, root: string): Promise<Row[]> {
  const { llama } = await getLlamaRuntime("cpu");
  const model = await llama.loadModel({ modelPath: defaultModelFile(), gpuLayers: 0 });
  // Room past the target: llama.cpp's context holds a little less than its nominal size.
  const state = await LlamaKvState.create(model, { contextSize: target + 256, threads, batchSize: 512 }, () => undefined);
  const one = model.tokenize(FILLER);
  const text = Array.from({ length: Math.ceil(target / one.length) + 1 }, () => one).flat();
  const filling = performance.now();
  const start = target - turns * TURN_TOKENS;
  for (let at = 0; at < start; at += 512) await state.evaluate(text.slice(at, Math.min(at + 512, start)));
  console.log(`  (filled ${start} tokens in ${((performance.now() - filling) / 1000).toFixed(0)} s)`);
  const row: Row = { path: "state", tokens: 0, ms: [], mb: [] };
  const delta: Row = { path: "delta", tokens: 0, ms: [], mb: [] };
  const file = join(root, `state-${target}.kv`);
  for (let i = 0; i < turns; i++) {
    const from = start + i * TURN_TOKENS;
    await state.evaluate(text.slice(from, from + TURN_TOKENS));
    const started = performance.now();
    const bytes = await state.saveSnapshot(file);
    row.ms.push(performance.now() - started);
    row.mb.push(bytes / MB);
    if (state.saveSnapshotDelta) {
      const deltaStarted = performance.now();
      const deltaBytes = await state.saveSnapshotDelta(`${file}.${i}.kvd`, from, text.slice(from, from + TURN_TOKENS));
      delta.ms.push(performance.now() - deltaStarted);
      delta.mb.push(deltaBytes / MB);
    }
  }
  const tokens = state.length;
  await state.dispose();
  await model.dispose();
  return delta.ms.length > 0 ? [{ ...row, tokens }, { ...delta, tokens }] : [{ ...row, tokens }];
}

/** A file as large as the state file at `target` tokens, written and renamed into place per turn. */
async function writePath(target: number, bytesPerToken: number, root: string): Promise<Row> {
  const body = randomBytes(Math.round(target * bytesPerToken));
  const row: Row = { path: "write", tokens: target, ms: [], mb: [] };
  const file = join(root, `write-${target}.kv`);
  for (let i = 0; i < turns; i++) {
    const started = performance.now();
    await writeFile(`${file}.tmp`, body);
    await rename(`${file}.tmp`, file);
    row.ms.push(performance.now() - started);
    row.mb.push(body.length / MB);
  }
  await rm(file, { force: true });
  return row;
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "snapshot-cost-"));
  try {
    console.log(`SmolLM2-135M Q4_1, llama.cpp CPU, ${threads} threads, ${turns} turns each; files in ${root}`);
    let bytesPerToken: number | undefined;
    for (const target of [...contexts].sort((a, b) => a - b)) {
      if (target <= fillLimit) {
        const [state, ...delta] = await statePath(target, root);
        report(state);
        delta.forEach(report);
        bytesPerToken ??= (median(state.mb) * MB) / state.tokens;
        if (target <= STORE_CONTEXT - 512) report(await storePath(target, root));
      }
      if (bytesPerToken === undefined) throw new Error(`no context at or below --fill-limit ${fillLimit} to measure bytes per token on`);
      report(await writePath(target, bytesPerToken, root));
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
