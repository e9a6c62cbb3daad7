// The peer bench: the same scenarios for our core and for llama-server on the same GGUF,
// threads and sampling, in one run. First a thread sweep (each side at each count), then
// every scenario with each side at its own best count.

import { loadEngine } from "../backends/load-engine";
import { ProxyEngine } from "../engine-host/proxy-engine";
import type { Engine } from "../core/engine";
import { ensureLlamaServer, type PeerBinary } from "./llama-server-binary";
import { LlamaServerProcess } from "./llama-server-process";
import { machineInfo, processCpuMs, type MachineInfo } from "./machine-info";
import { runScenario, type ScenarioId } from "./scenarios";
import { ourSide, peerSide, type ChatSettings } from "./sides";
import { median, round1, type Side, type TurnMeasure } from "./turn-measure";

export interface PeerBenchOptions {
  readonly modelPath: string;
  readonly turns: number;
  readonly maxTokens: number;
  /** Context size of scenarios a–c. */
  readonly contextSize: number;
  /** Context size of scenario d (it must pass it). */
  readonly longContextSize: number;
  readonly threads: readonly number[];
  readonly sweepTurns: number;
  readonly peer: boolean;
  /** Run our engine in the bench's process instead of an engine host process. */
  readonly inProcess: boolean;
  readonly scenarios: readonly ScenarioId[];
  readonly cacheDir: string;
  readonly systemPrompt: string;
  readonly log: (line: string) => void;
}

export interface SweepPoint {
  readonly side: Side;
  readonly threads: number;
  readonly medianDecodeTokensPerSec: number;
  readonly medianTtftMs: number;
}

export interface ScenarioResult {
  readonly id: ScenarioId;
  readonly contextSize: number;
  readonly runs: ReadonlyArray<{ readonly side: Side; readonly label: string; readonly threads: number; readonly turns: readonly TurnMeasure[] }>;
}

export interface PeerBenchResult {
  readonly date: string;
  readonly machine: MachineInfo;
  readonly model: string;
  readonly builds: { readonly ours: string; readonly peer?: string };
  readonly settings: { readonly turns: number; readonly maxTokens: number; readonly contextSize: number; readonly longContextSize: number; readonly sampling: "greedy" };
  readonly sweep: readonly SweepPoint[];
  readonly best: { readonly ours: number; readonly peer?: number };
  readonly idleCpuPercent: { readonly ours: number; readonly peer?: number };
  readonly scenarios: readonly ScenarioResult[];
}

/** Our engine as the product runs it (an engine host process), or in this process with `inProcess`. */
async function withOurEngine<T>(
  options: PeerBenchOptions,
  threads: number,
  contextSize: number,
  body: (engine: Engine, enginePid: number) => Promise<T>,
): Promise<T> {
  const request = { modelPath: options.modelPath, backend: "llamacpp" as const, contextSize, threads };
  const engine = options.inProcess ? (await loadEngine(request)).engine : await ProxyEngine.start(request);
  const enginePid = engine instanceof ProxyEngine ? engine.pid ?? process.pid : process.pid;
  try {
    return await body(engine, enginePid);
  } finally {
    await engine.dispose();
  }
}

async function withPeer<T>(binary: PeerBinary, options: PeerBenchOptions, threads: number, contextSize: number, slots: number, body: (server: LlamaServerProcess) => Promise<T>): Promise<T> {
  const server = await LlamaServerProcess.start({ binary: binary.path, modelPath: options.modelPath, contextSize, threads, slots });
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
}

/** CPU used by a process while nothing runs, as % of one core over `ms`. */
async function idleCpuPercent(pid: number, ms: number): Promise<number> {
  const before = pid === process.pid ? process.cpuUsage() : undefined;
  const start = processCpuMs(pid);
  await new Promise((resolve) => setTimeout(resolve, ms));
  const used = before ? (() => { const d = process.cpuUsage(before); return (d.user + d.system) / 1000; })() : processCpuMs(pid) - start;
  return round1((used / ms) * 100);
}

const sweepPoint = (side: Side, threads: number, turns: readonly TurnMeasure[]): SweepPoint => ({
  side,
  threads,
  // The first turn carries the system prompt: leave it out of the decode/first-token medians.
  medianDecodeTokensPerSec: round1(median(turns.slice(1).map((t) => t.decodeTokensPerSec))),
  medianTtftMs: round1(median(turns.slice(1).map((t) => t.ttftMs))),
});

/** b runs the peer with one slot and with one per chat; d with and without client pruning. */
function peerVariants(id: ScenarioId): Array<{ label: string; slots: number; fit: "prune" | "none" }> {
  if (id === "b") return [1, 2].map((slots) => ({ label: `llama-server -np ${slots}`, slots, fit: "prune" as const }));
  if (id === "d") {
    return [
      { label: "llama-server, client sends all", slots: 1, fit: "none" },
      { label: "llama-server, client drops oldest", slots: 1, fit: "prune" },
    ];
  }
  return [{ label: "llama-server", slots: 1, fit: "prune" }];
}

export async function runPeerBench(options: PeerBenchOptions): Promise<PeerBenchResult> {
  const log = options.log;
  const settings: ChatSettings = { systemPrompt: options.systemPrompt, maxTokens: options.maxTokens };
  const binary = options.peer ? await ensureLlamaServer(options.cacheDir, log) : undefined;
  const sweep: SweepPoint[] = [];
  let oursDetails = "";
  const sweepRun = { turns: Math.max(2, options.sweepTurns) };

  for (const threads of options.threads) {
    log(`sweep: ours, ${threads} thread(s)`);
    const turns = await withOurEngine(options, threads, options.contextSize, (engine) => {
      oursDetails = `${engine.info.details}; ${options.inProcess ? "in the bench's process" : "in an engine host process, as in the product"}`;
      return runScenario("a", ourSide(engine, settings), sweepRun);
    });
    sweep.push(sweepPoint("ours", threads, turns));
    if (binary) {
      log(`sweep: llama-server, ${threads} thread(s)`);
      const peerTurns = await withPeer(binary, options, threads, options.contextSize, 1, (server) =>
        runScenario("a", peerSide(server, options.contextSize, settings), sweepRun),
      );
      sweep.push(sweepPoint("peer", threads, peerTurns));
    }
  }
  const bestOf = (side: Side) =>
    sweep.filter((p) => p.side === side).sort((x, y) => y.medianDecodeTokensPerSec - x.medianDecodeTokensPerSec)[0]?.threads;
  const best = { ours: bestOf("ours") ?? options.threads[0], peer: binary ? bestOf("peer") : undefined };

  const scenarios: ScenarioResult[] = [];
  const idle: { ours: number; peer?: number } = { ours: 0 };
  for (const id of options.scenarios) {
    const contextSize = id === "d" ? options.longContextSize : options.contextSize;
    const run = { turns: options.turns, log: (line: string) => log(`  ${line}`) };
    const runs: ScenarioResult["runs"][number][] = [];
    log(`scenario ${id}: ours, ${best.ours} thread(s), context ${contextSize}`);
    runs.push({
      side: "ours",
      label: "ours",
      threads: best.ours,
      turns: await withOurEngine(options, best.ours, contextSize, async (engine, enginePid) => {
        const turns = await runScenario(id, ourSide(engine, settings), run);
        if (id === "a") idle.ours = await idleCpuPercent(enginePid, 10_000);
        return turns;
      }),
    });
    if (binary && best.peer !== undefined) {
      for (const variant of peerVariants(id)) {
        log(`scenario ${id}: ${variant.label}, ${best.peer} thread(s), context ${contextSize} per slot`);
        const turns = await withPeer(binary, options, best.peer, contextSize, variant.slots, async (server) => {
          const result = await runScenario(id, peerSide(server, contextSize, settings, variant.fit), run);
          if (id === "a") idle.peer = await idleCpuPercent(server.pid, 10_000);
          return result;
        });
        runs.push({ side: "peer", label: variant.label, threads: best.peer, turns });
      }
    }
    scenarios.push({ id, contextSize, runs });
  }

  return {
    date: new Date().toISOString(),
    machine: machineInfo(),
    model: options.modelPath.split("/").pop() ?? options.modelPath,
    builds: { ours: oursDetails, peer: binary?.build },
    settings: { turns: options.turns, maxTokens: options.maxTokens, contextSize: options.contextSize, longContextSize: options.longContextSize, sampling: "greedy" },
    sweep,
    best,
    idleCpuPercent: idle,
    scenarios,
  };
}
