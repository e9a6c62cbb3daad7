// `node --import tsx test/bench/engine-process-bench.ts [--runs N] [--threads N] [--only ipc|memory]`:
// what the engine process costs and what a KV snapshot saves, on the default model.
// - IPC: the round trip of one request that does (almost) nothing in the engine process.
// - Decode: the same greedy reply in this process and through the engine process, runs
//   alternated; medians of tokens/s and the per-token overhead of the IPC round trip.
// - Resume: a long chat saved to a snapshot, then its next turn's time to first token when
//   resumed from the snapshot vs re-prefilled from the conversation.
// - Memory (`--only memory`): the engine process's resident memory with the model loaded and
//   with one and two chats (each its own KV state), and what the tokenizer kept in this
//   process (the extension host's side) costs.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { LlamaEngine } from "../../src/extension/backends/llamacpp/llama-engine";
import { Conversation } from "../../src/extension/core/conversation";
import type { Engine } from "../../src/extension/core/engine";
import { SnapshotStore } from "../../src/extension/snapshots/snapshot-store";
import { defaultModelFile } from "../support/default-model";
import { startProxyEngine } from "../support/engine-process";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "5" }, threads: { type: "string", default: "1" }, only: { type: "string" } },
});
const runs = Number(values.runs);
const threads = Number(values.threads);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const PROMPT = "Write a long story about a compiler that learns to cache.";

async function decodeSpeed(engine: Engine): Promise<number> {
  const chat = await Conversation.create(engine, { turn: { maxTokens: 160 } });
  const stats = await chat.send({ text: PROMPT });
  await chat.dispose();
  return stats.decodeTokensPerSec;
}

/** Median round trip of a request that costs the engine next to nothing (reset of an empty state). */
async function ipcRoundTrip(engine: Engine): Promise<number> {
  const state = await engine.createState();
  await state.evaluate([1]); // Creates the remote state.
  const times: number[] = [];
  for (let i = 0; i < 2_000; i++) {
    const started = performance.now();
    await state.reset();
    times.push(performance.now() - started);
  }
  await state.dispose();
  return median(times);
}

/** Resident memory of a process in MiB, from /proc (Linux). */
function residentMiB(pid: number | undefined): number {
  if (pid === undefined) throw new Error("the engine process is not running");
  const kib = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
  return Math.round(kib / 1024);
}

async function memory(request: Parameters<typeof startProxyEngine>[0]): Promise<void> {
  const before = residentMiB(process.pid);
  const proxy = await startProxyEngine(request);
  const loaded = residentMiB(proxy.pid);
  const hostSide = residentMiB(process.pid) - before;
  const chats: Conversation[] = [];
  const withChats: number[] = [];
  for (let i = 0; i < 2; i++) {
    const chat = await Conversation.create(proxy, { turn: { maxTokens: 32 } });
    await chat.send({ text: PROMPT });
    chats.push(chat);
    withChats.push(residentMiB(proxy.pid));
  }
  console.log(
    `memory, context ${request.contextSize}: engine process ${loaded} MiB with the model loaded, ${withChats[0]} MiB with one chat, ${withChats[1]} MiB with two; ` +
      `this process (the extension host's side: tokenizer, IPC) +${hostSide} MiB`,
  );
  for (const chat of chats) await chat.dispose();
  await proxy.dispose();
}

async function main(): Promise<void> {
  const modelPath = defaultModelFile();
  const request = { modelPath, backend: "llamacpp" as const, contextSize: 4096, threads };
  if (values.only === "memory") return memory(request);
  if (values.only === "ipc") {
    const proxy = await startProxyEngine(request);
    console.log(`IPC round trip (median of 2000 empty-state resets): ${(await ipcRoundTrip(proxy)).toFixed(3)} ms`);
    await proxy.dispose();
    return;
  }
  const inProcess = await LlamaEngine.load({ modelPath, contextSize: 4096, threads });
  const proxy = await startProxyEngine(request);
  const speeds = { inProcess: [] as number[], proxy: [] as number[] };
  for (let i = 0; i < runs; i++) {
    speeds.inProcess.push(await decodeSpeed(inProcess));
    speeds.proxy.push(await decodeSpeed(proxy));
  }
  const a = median(speeds.inProcess);
  const b = median(speeds.proxy);
  console.log(`decode, ${threads} thread(s), ${runs} runs alternated: in-process ${a} tok/s, engine process ${b} tok/s (median)`);
  console.log(`  per-token overhead of the engine process: ${(1000 / b - 1000 / a).toFixed(2)} ms (runs: ${JSON.stringify(speeds)})`);
  await inProcess.dispose();

  const root = mkdtempSync(join(tmpdir(), "snapshot-bench-"));
  try {
    const store = new SnapshotStore(root);
    const chat = await Conversation.create(proxy, { turn: { maxTokens: 128 } });
    const messages = [];
    for (let i = 0; i < 12; i++) {
      const text = `Question ${i + 1}: explain one more idea about caching in compilers.`;
      const stats = await chat.send({ text });
      messages.push({ role: "user" as const, content: text }, { role: "assistant" as const, content: stats.reply });
    }
    const meta = await store.save("bench", chat);
    const conversation = meta!.conversation;
    await chat.dispose();
    const ttft = { snapshot: [] as number[], reprefill: [] as number[], load: [] as number[] };
    for (let i = 0; i < runs; i++) {
      const resumed = await Conversation.create(proxy, { turn: { maxTokens: 8 } });
      const started = performance.now();
      const outcome = await store.restore("bench", resumed, messages);
      ttft.load.push(Math.round(performance.now() - started));
      if (outcome.kind !== "snapshot") throw new Error(`snapshot not used: ${JSON.stringify(outcome)}`);
      ttft.snapshot.push((await resumed.send({ text: "And one more." })).ttftMs);
      await resumed.dispose();
      const replayed = await Conversation.create(proxy, { turn: { maxTokens: 8 } });
      await replayed.restoreFromSnapshot(conversation);
      ttft.reprefill.push((await replayed.send({ text: "And one more." })).ttftMs);
      await replayed.dispose();
    }
    console.log(
      `resume a ${meta!.ledger.length}-token chat (${Math.round(meta!.cacheBytes / 1024 / 1024)} MiB snapshot): ` +
        `load ${median(ttft.load)} ms, then first token ${median(ttft.snapshot)} ms; re-prefilled: first token ${median(ttft.reprefill)} ms (medians of ${runs})`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
    await proxy.dispose();
  }
}

void main();
