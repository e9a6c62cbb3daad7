// `node --import tsx test/bench/verify-cost-curve.ts --model PATH [--threads 2] [--context 1000]
//   [--max-batch 17] [--repeats 5] [--no-peer] [--json FILE]`
// What a batch of k tokens costs against one decoded token, after the same context, on our
// engine and on llama-server built from the same llama.cpp source, both in this run,
// alternated per batch size. Speculation pays only where a verify batch of 1 + k tokens costs
// well under its 1 + k decodes, so this curve is what `auto` weighs drafts against.
//
// Rows measured on each side, for b = 1..max-batch tokens after `context` cached tokens:
// - ours verify: KvState.verify (one native call: the batch decoded with logits for every
//   row, every row sampled), the speculative step itself;
// - ours prefill: KvState.evaluate of the same b tokens (logits for the last row only);
// - peer prompt: llama-server /completion with cache_prompt, the context cached, the b new
//   tokens as prompt and one token predicted: its `timings.prompt_ms` (last-row logits, like
//   our prefill: the like-for-like comparison of the two builds' batch kernels);
// - decode: ours the native reply loop's ms per token, the peer's `predicted_per_token_ms`.
// Not part of `npm test`: a bench (minutes on a 1.5B model).

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadEngine } from "../../src/extension/backends/load-engine";
import type { KvState } from "../../src/extension/core/engine";
import { ensureLlamaServer } from "../../src/tools/peer-bench/llama-server-binary";
import { LlamaServerProcess } from "../../src/tools/peer-bench/llama-server-process";
import { machineInfo } from "../../src/tools/peer-bench/machine-info";
import { rewriteSession } from "../../src/tools/peer-bench/rewrite-requests";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    threads: { type: "string", default: "2" },
    context: { type: "string", default: "1000" },
    "max-batch": { type: "string", default: "17" },
    repeats: { type: "string", default: "5" },
    "no-peer": { type: "boolean", default: false },
    json: { type: "string" },
  },
});
if (!values.model) throw new Error("--model PATH is required (e.g. .cache/bench-models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf)");
const modelPath = values.model;
const threads = Number(values.threads);
const contextLength = Number(values.context);
const maxBatch = Number(values["max-batch"]);
const repeats = Number(values.repeats);
const GREEDY = { temperature: 0 } as const;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number) => Math.round(x * 10) / 10;

async function timed(step: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await step();
  return performance.now() - start;
}

interface Row {
  readonly batch: number;
  oursVerifyMs: number;
  oursPrefillMs: number;
  peerPromptMs?: number;
}

async function main(): Promise<void> {
  const { engine } = await loadEngine({ modelPath, backend: "llamacpp", contextSize: 4096, threads, speculative: "off" });
  const text = rewriteSession(8).map((t) => t.content).join("\n");
  let tokens = engine.tokenizer.encode(text, { specials: false });
  while (tokens.length < contextLength + 3 * maxBatch + 32) tokens = [...tokens, ...tokens];
  const context = tokens.slice(0, contextLength);
  // Two continuations that differ from their first token: alternated, so each peer request
  // shares exactly the context with the one before it and evaluates its whole batch.
  const extra = tokens.slice(contextLength, contextLength + maxBatch);
  let other = contextLength + maxBatch;
  while (tokens[other] === extra[0]) other++;
  const extraB = tokens.slice(other, other + maxBatch);
  if (extraB.length < maxBatch) throw new Error("not enough text for two continuations");
  const state: KvState = await engine.createState();
  if (!state.verify || !state.generateReply) throw new Error("this build has no batch verify or reply loop (use our llama.cpp build: node out/cli.js build-llama)");
  await state.evaluate(context);
  const undo = () => state.truncate(contextLength);

  const decodeLoop = async () => {
    const count = 16;
    const ms = await timed(() => state.generateReply!([extra[0]], { sample: GREEDY, maxTokens: count }, () => {}).done);
    await undo();
    return ms / count;
  };
  await decodeLoop(); // warm-up
  const oursDecode: number[] = [];

  const peer = values["no-peer"] ? undefined : await startPeer();
  const peerDecode: number[] = [];
  const rows: Row[] = [];
  try {
    if (peer) await peer.complete(context, 1); // the context cached in the slot
    let requestCount = 0;
    for (let batch = 1; batch <= maxBatch; batch++) {
      const verify: number[] = [];
      const prefill: number[] = [];
      const prompt: number[] = [];
      for (let r = 0; r < repeats; r++) {
        const input = (requestCount++ % 2 === 0 ? extra : extraB).slice(0, batch);
        verify.push(await timed(() => state.verify!(input, GREEDY)));
        await undo();
        prefill.push(await timed(() => state.evaluate(input)));
        await undo();
        if (peer) {
          const timings = await peer.complete([...context, ...input], 1);
          if (timings.prompt_n !== batch) throw new Error(`the peer evaluated ${timings.prompt_n} prompt tokens for a batch of ${batch} (its cache was not reused)`);
          prompt.push(timings.prompt_ms);
        }
      }
      if (batch % 4 === 1) {
        oursDecode.push(await decodeLoop());
        if (peer) peerDecode.push((await peer.complete([...context, extra[0]], 16)).predicted_per_token_ms);
      }
      rows.push({ batch, oursVerifyMs: median(verify), oursPrefillMs: median(prefill), peerPromptMs: peer ? median(prompt) : undefined });
      process.stderr.write(`batch ${batch}: ours verify ${round(median(verify))} ms, prefill ${round(median(prefill))} ms${peer ? `, peer prompt ${round(median(prompt))} ms` : ""}\n`);
    }
  } finally {
    await peer?.server.stop();
    await state.dispose();
    await engine.dispose();
  }
  report(rows, median(oursDecode), peerDecode.length ? median(peerDecode) : undefined, engine.info.details);
}

interface PeerTimings {
  readonly prompt_n: number;
  readonly prompt_ms: number;
  readonly predicted_per_token_ms: number;
}

async function startPeer() {
  const binary = await ensureLlamaServer(join(process.cwd(), ".cache", "peer"), { log: (line) => process.stderr.write(`${line}\n`) });
  const server = await LlamaServerProcess.start({ binary: binary.path, modelPath, contextSize: 4096, threads, slots: 1 });
  return {
    server,
    build: binary.build,
    async complete(prompt: readonly number[], predict: number): Promise<PeerTimings> {
      const response = await fetch(`${server.baseUrl}/completion`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ prompt, n_predict: predict, cache_prompt: true, temperature: 0, top_k: 1, samplers: ["top_k"] }),
      });
      if (!response.ok) throw new Error(`llama-server /completion: HTTP ${response.status} ${await response.text()}`);
      const body = (await response.json()) as { timings?: PeerTimings };
      if (!body.timings) throw new Error("llama-server sent no timings");
      return body.timings;
    },
  };
}

function report(rows: readonly Row[], oursDecodeMs: number, peerDecodeMs: number | undefined, details: string): void {
  const lines = [
    `Verify cost curve · ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC · ${machineInfo().cpuModel}, ${threads} threads · ${modelPath.split("/").pop()} · context ${contextLength} tokens · median of ${repeats}`,
    `Ours: ${details}. Decode: ours ${round(oursDecodeMs)} ms/token${peerDecodeMs ? `, peer ${round(peerDecodeMs)} ms/token` : ""}.`,
    "",
    "| batch | ours verify ms | ÷ ours decode | ours prefill ms | peer prompt ms | ours prefill ÷ peer prompt | peer prompt ÷ peer decode |",
    "|---|---|---|---|---|---|---|",
    ...rows.map((r) =>
      `| ${r.batch} | ${round(r.oursVerifyMs)} | ${(r.oursVerifyMs / oursDecodeMs).toFixed(2)} | ${round(r.oursPrefillMs)} | ${r.peerPromptMs !== undefined ? round(r.peerPromptMs) : "–"} | ` +
        `${r.peerPromptMs ? (r.oursPrefillMs / r.peerPromptMs).toFixed(2) : "–"} | ${r.peerPromptMs && peerDecodeMs ? (r.peerPromptMs / peerDecodeMs).toFixed(2) : "–"} |`,
    ),
  ];
  console.log(lines.join("\n"));
  if (values.json) writeFileSync(values.json, JSON.stringify({ modelPath, threads, contextLength, repeats, oursDecodeMs, peerDecodeMs, rows }, null, 2));
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
