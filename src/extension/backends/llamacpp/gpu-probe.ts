// Asks node-llama-cpp what a GPU binary finds here, in a child process per GPU type: a
// process holds one llama.cpp binary for good (the binaries share library names such as
// libggml-base.so, so a second one in the same process would bind to the first one's), and
// the binary that serves the model is loaded only once the choice is made. The child loads
// the prebuilt binary of that type, lists its devices and free memory, and estimates what
// the model and one KV cache need there; gpu-choice.ts decides from that.

import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { nodeLlamaCppPackageDir } from "./fast-build";
import type { GpuAttempt, GpuType } from "./gpu-choice";
import type { Llama, NodeLlamaCppModule } from "./node-llama-cpp";

export interface ProbeRequest {
  readonly type: GpuType;
  readonly modelPath?: string;
  readonly contextSize: number;
  readonly batchSize: number;
}

const MARKER = "STATEFUL_CHAT_GPU_PROBE ";
const PROBE_TIMEOUT_MS = 120_000;

// Runs as an ES module file in the child (not with -e: node-llama-cpp forks its binary test
// with the parent's execArgv, which would run this script again): argv[2] is the JSON
// request, the answer one marked line on stdout (node-llama-cpp prints its own notes there).
const CHILD_SCRIPT = `
const request = JSON.parse(process.argv[2]);
const m = await import(request.entry);
const logs = [];
let answer;
try {
  const llama = await m.getLlama({ gpu: request.type, build: "never", skipDownload: true, progressLogs: false,
    logLevel: m.LlamaLogLevel.error, logger: (level, message) => { logs.push(message.trim()); if (logs.length > 6) logs.shift(); } });
  if (llama.gpu !== request.type) throw new Error("node-llama-cpp loaded " + String(llama.gpu) + " instead of " + request.type);
  const devices = await llama.getGpuDeviceNames();
  const vram = await llama.getVramState();
  let estimate;
  if (request.modelPath && llama.supportsGpuOffloading && devices.length > 0) {
    const insights = await m.GgufInsights.from(await m.readGgufFileInfo(request.modelPath), llama);
    const layers = insights.totalLayers;
    const model = await insights.estimateModelResourceRequirementsV2({ gpuLayers: layers });
    const context = await insights.estimateContextResourceRequirementsV2({ contextSize: request.contextSize, modelGpuLayers: layers, batchSize: request.batchSize, sequences: 1, flashAttention: "auto" });
    estimate = { layers, modelBytes: model.gpuVram, contextBytes: context.gpuVram };
  }
  answer = { type: request.type, loaded: true, devices, offloading: llama.supportsGpuOffloading, vram: { total: vram.total, free: vram.free }, padding: llama.vramPaddingSize, estimate };
} catch (error) {
  const message = (error && error.message) || String(error);
  answer = { type: request.type, loaded: false, error: [error && error.name && error.name !== "Error" ? error.name + ": " + message : message, ...logs].join("; ").slice(0, 600) };
}
process.stdout.write("\\n${MARKER}" + JSON.stringify(answer) + "\\n");
process.exit(0);
`;

/** Parses the child's marked answer line; anything else is a failed load. */
export function parseProbeOutput(type: GpuType, stdout: string): GpuAttempt {
  const line = stdout.split("\n").reverse().find((l) => l.startsWith(MARKER));
  if (!line) return { type, loaded: false, error: "the probe process gave no answer" };
  try {
    const value = JSON.parse(line.slice(MARKER.length)) as Record<string, unknown>;
    if (value.type !== type || typeof value.loaded !== "boolean") throw new Error("malformed");
    if (!value.loaded) return { type, loaded: false, error: typeof value.error === "string" ? value.error : "unknown error" };
    const vram = value.vram as { total?: unknown; free?: unknown } | undefined;
    const estimate = value.estimate as { layers?: unknown; modelBytes?: unknown; contextBytes?: unknown } | undefined;
    const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
    return {
      type,
      loaded: true,
      devices: Array.isArray(value.devices) ? value.devices.filter((d): d is string => typeof d === "string") : [],
      offloading: value.offloading === true,
      vram: { total: num(vram?.total), free: num(vram?.free) },
      padding: num(value.padding),
      estimate: estimate ? { layers: num(estimate.layers), modelBytes: num(estimate.modelBytes), contextBytes: num(estimate.contextBytes) } : undefined,
    };
  } catch {
    return { type, loaded: false, error: "the probe process answered something unreadable" };
  }
}

/** One GPU type, probed in a child process (Electron's node included: ELECTRON_RUN_AS_NODE). */
export function probeGpu(request: ProbeRequest, signal?: AbortSignal): Promise<GpuAttempt> {
  const packageDir = nodeLlamaCppPackageDir();
  if (!packageDir) return Promise.resolve({ type: request.type, loaded: false, error: "node-llama-cpp is not installed" });
  const entry = pathToFileURL(join(packageDir, "dist", "index.js")).href;
  const argument = JSON.stringify({ ...request, entry });
  const folder = mkdtempSync(join(tmpdir(), "stateful-chat-gpu-probe-"));
  const script = join(folder, "probe.mjs");
  writeFileSync(script, CHILD_SCRIPT);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script, argument],
      { env: { ...process.env, ELECTRON_RUN_AS_NODE: "1" }, timeout: PROBE_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024, signal, windowsHide: true },
      (error, stdout) => {
        rmSync(folder, { recursive: true, force: true });
        const attempt = parseProbeOutput(request.type, String(stdout));
        if (error && !attempt.loaded && attempt.error === "the probe process gave no answer") {
          resolve({ type: request.type, loaded: false, error: `the probe process failed: ${error.message.split("\n")[0]}` });
        } else resolve(attempt);
      },
    );
  });
}

/**
 * The same report for the GPU binary this process already runs (no child: it is loaded
 * here for good). Mirrors CHILD_SCRIPT.
 */
export async function describeLoadedGpu(module: NodeLlamaCppModule, llama: Llama, request: ProbeRequest): Promise<GpuAttempt> {
  const devices = await llama.getGpuDeviceNames();
  const vram = await llama.getVramState();
  let estimate: { layers: number; modelBytes: number; contextBytes: number } | undefined;
  if (request.modelPath && llama.supportsGpuOffloading && devices.length > 0) {
    const insights = await module.GgufInsights.from(await module.readGgufFileInfo(request.modelPath), llama);
    const layers = insights.totalLayers;
    const model = await insights.estimateModelResourceRequirementsV2({ gpuLayers: layers });
    const context = await insights.estimateContextResourceRequirementsV2({ contextSize: request.contextSize, modelGpuLayers: layers, batchSize: request.batchSize, sequences: 1, flashAttention: "auto" });
    estimate = { layers, modelBytes: model.gpuVram, contextBytes: context.gpuVram };
  }
  return { type: request.type, loaded: true, devices, offloading: llama.supportsGpuOffloading, vram: { total: vram.total, free: vram.free }, padding: llama.vramPaddingSize, estimate };
}
