// `node --import tsx test/bench/batch-threads.ts [--tokens 1000] [--rounds 3] [--counts 1,2] [--model GGUF --ctx N]`:
// prefill speed by batch thread count (issue 36 item 5), on the default model through llama.cpp
// (SmolLM2-135M Q4_1), side by side in one run, counts alternated each round. Decode keeps one
// thread where the binary can set batch threads apart (our build's setBatchThreads); on
// node-llama-cpp's prebuilt binary a context has one count for both, so the row's count is the
// context's and the decode figure moves with it (said in the output). Per count: prefill tok/s
// (median of the rounds, with the spread), decode tok/s over 32 tokens after it.

import { parseArgs } from "node:util";
import { LlamaKvState } from "../../src/extension/backends/llamacpp/llama-state";
import { describeLlamaBuild, getLlamaRuntime } from "../../src/extension/backends/llamacpp/node-llama-cpp";
import { defaultModelFile } from "../support/default-model";

const { values } = parseArgs({
  options: {
    tokens: { type: "string", default: "1000" },
    rounds: { type: "string", default: "3" },
    counts: { type: "string", default: "1,2" },
    // Another GGUF (the 1.5B of issue 36's first Agent-mode request) and a context to hold the prompt.
    model: { type: "string" },
    ctx: { type: "string", default: "2048" },
  },
});
const promptTokens = Number(values.tokens);
const rounds = Number(values.rounds);
const counts = values.counts.split(",").map(Number);
const DECODE_THREADS = 1;
const CHUNK = 512;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const { llama } = await getLlamaRuntime("cpu");
  const model = await llama.loadModel({ modelPath: values.model ?? defaultModelFile(), gpuLayers: 0 });
  const line = "function add(a, b) { return a + b; } // adds two numbers and returns the sum\n";
  const text = line.repeat(Math.ceil(promptTokens / 15));
  const prompt = (model.tokenize(text, false) as number[]).slice(0, promptTokens);
  console.log(`llama.cpp ${describeLlamaBuild(llama)}; prompt ${prompt.length} tokens in chunks of ${CHUNK}; ${rounds} rounds`);
  const prefill: Record<number, number[]> = {};
  const decode: Record<number, number[]> = {};
  let apart = true;
  for (let round = 0; round < rounds; round++) {
    for (const batchThreads of counts) {
      const state = await LlamaKvState.create(model, { contextSize: Number(values.ctx), threads: DECODE_THREADS, batchThreads, batchSize: CHUNK }, () => undefined);
      let probe: LlamaKvState | undefined = state;
      if (!state.batchThreadsApplied) {
        // The prebuilt binary: one count per context, so this row's context has batchThreads for both.
        apart = false;
        await state.dispose();
        probe = await LlamaKvState.create(model, { contextSize: Number(values.ctx), threads: batchThreads, batchSize: CHUNK }, () => undefined);
      }
      try {
        const started = performance.now();
        for (let at = 0; at < prompt.length - 1; at += CHUNK) await probe.evaluate(prompt.slice(at, Math.min(prompt.length - 1, at + CHUNK)));
        let token = (await probe.evaluate(prompt.slice(-1), { temperature: 0 }))!;
        const prefillSpeed = (prompt.length * 1000) / (performance.now() - started);
        const decodeStart = performance.now();
        for (let i = 0; i < 32; i++) token = (await probe.evaluate([token], { temperature: 0 }))!;
        const decodeSpeed = (32 * 1000) / (performance.now() - decodeStart);
        (prefill[batchThreads] ??= []).push(prefillSpeed);
        (decode[batchThreads] ??= []).push(decodeSpeed);
        console.log(`round ${round + 1}, batch threads ${batchThreads}: prefill ${prefillSpeed.toFixed(0)} tok/s, decode ${decodeSpeed.toFixed(1)} tok/s`);
      } finally {
        await probe.dispose();
      }
    }
  }
  const spread = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;
  console.log(apart ? `decode on ${DECODE_THREADS} thread (batch threads set apart)` : "prebuilt binary: one count per context, decode on the row's count too");
  console.log("batch threads | prefill tok/s median (spread) | decode tok/s median");
  for (const n of counts) console.log(`${n} | ${median(prefill[n]!).toFixed(0)} (${spread(prefill[n]!)}) | ${median(decode[n]!).toFixed(1)}`);
  if (counts.length === 2) console.log(`prefill speed-up ${counts[1]} vs ${counts[0]}: ${(median(prefill[counts[1]!]!) / median(prefill[counts[0]!]!)).toFixed(2)}×`);
  await model.dispose();
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
