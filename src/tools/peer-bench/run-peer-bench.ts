// The peer bench: the same scenarios for our core and for llama-server on the same GGUF,
// threads and sampling, in one run. First a thread sweep (each side at each count, no
// speculation), then every scenario with each side at its own best count, once per
// speculative configuration, the configurations alternated over the repeats.

import { loadEngine } from "../../extension/backends/load-engine";
import type { EngineRequest } from "../../extension/core/engine-options";
import { ProxyEngine } from "../../extension/engine-host/proxy-engine";
import type { Engine } from "../../extension/core/engine";
import { ensureLlamaServer, type PeerBinary } from "./llama-server-binary";
import { LlamaServerProcess } from "./llama-server-process";
import { machineInfo, processCpuMs, type MachineInfo } from "./machine-info";
import { planScenarioRuns, type PeerVariant } from "./run-plan";
import { runScenario, type ScenarioId } from "./scenarios";
import { ourSide, peerSide, type ChatSettings } from "./sides";
import { ourSpecRequest, peerSpecArgs, specLabel, type OurSpecMode, type PeerSpecMode, type SpecConfig } from "./spec-configs";
import { median, round1, type Side, type TurnMeasure } from "./turn-measure";

export interface PeerBenchOptions {
  readonly modelPath: string;
  /** A model with the same vocabulary for ours:draft and peer:draft. */
  readonly draftModelPath?: string;
  /** The peer's `--spec-draft-n-max` with a draft model. */
  readonly peerDraftMax: number;
  readonly turns: number;
  readonly maxTokens: number;
  /** Scenario e's turns and reply length. */
  readonly editTurns: number;
  readonly editMaxTokens: number;
  /** Context size of scenarios a–c and e. */
  readonly contextSize: number;
  /** Context size of scenario d (it must pass it). */
  readonly longContextSize: number;
  readonly threads: readonly number[];
  readonly sweepTurns: number;
  readonly peer: boolean;
  /** Run our engine in the bench's process instead of an engine host process. */
  readonly inProcess: boolean;
  readonly scenarios: readonly ScenarioId[];
  readonly specConfigs: readonly SpecConfig[];
  readonly repeats: number;
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

export interface RunResult {
  readonly side: Side;
  /** The configuration (`ours:lookup`, `peer:ngram-simple (-np 2)`): repeats share it. */
  readonly label: string;
  readonly config: string;
  /** False for a scenario's other peer variants (b's -np 1, d's client that sends all). */
  readonly main: boolean;
  readonly repeat: number;
  readonly threads: number;
  readonly turns: readonly TurnMeasure[];
}

export interface ScenarioResult {
  readonly id: ScenarioId;
  readonly contextSize: number;
  readonly turns: number;
  readonly maxTokens: number;
  /** In the order they ran. */
  readonly runs: readonly RunResult[];
}

export interface PeerBenchResult {
  readonly date: string;
  readonly machine: MachineInfo;
  readonly model: string;
  readonly draftModel?: string;
  readonly builds: { readonly ours: string; readonly peer?: string };
  readonly settings: {
    readonly turns: number;
    readonly maxTokens: number;
    readonly editTurns: number;
    readonly editMaxTokens: number;
    readonly contextSize: number;
    readonly longContextSize: number;
    readonly repeats: number;
    readonly specConfigs: readonly string[];
    readonly peerDraftMax: number;
    readonly sampling: "greedy";
  };
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
  mode: OurSpecMode,
  body: (engine: Engine, enginePid: number) => Promise<T>,
): Promise<T> {
  const request: EngineRequest = { modelPath: options.modelPath, backend: "llamacpp" as const, contextSize, threads, ...ourSpecRequest(mode, options.draftModelPath) };
  const engine = options.inProcess ? (await loadEngine(request)).engine : await ProxyEngine.start(request);
  const enginePid = engine instanceof ProxyEngine ? engine.pid ?? process.pid : process.pid;
  try {
    return await body(engine, enginePid);
  } finally {
    await engine.dispose();
  }
}

async function withPeer<T>(
  binary: PeerBinary,
  options: PeerBenchOptions,
  threads: number,
  contextSize: number,
  slots: number,
  mode: PeerSpecMode,
  flashAttnOff: boolean,
  body: (server: LlamaServerProcess) => Promise<T>,
): Promise<T> {
  const extraArgs = peerSpecArgs(mode, { path: options.draftModelPath, maxTokens: options.peerDraftMax }, flashAttnOff);
  const server = await LlamaServerProcess.start({ binary: binary.path, modelPath: options.modelPath, contextSize, threads, slots, extraArgs });
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

export async function runPeerBench(options: PeerBenchOptions): Promise<PeerBenchResult> {
  const log = options.log;
  const binary = options.peer ? await ensureLlamaServer(options.cacheDir, { log }) : undefined;
  const sweep: SweepPoint[] = [];
  let oursDetails = "";
  const settingsFor = (id: ScenarioId): ChatSettings => ({ systemPrompt: options.systemPrompt, maxTokens: id === "e" ? options.editMaxTokens : options.maxTokens });
  const sweepRun = { turns: Math.max(2, options.sweepTurns) };

  for (const threads of options.threads) {
    log(`sweep: ours:off, ${threads} thread(s)`);
    const turns = await withOurEngine(options, threads, options.contextSize, "off", (engine) => {
      oursDetails = `${engine.info.details}; ${options.inProcess ? "in the bench's process" : "in an engine host process, as in the product"}`;
      return runScenario("a", ourSide(engine, settingsFor("a")), sweepRun);
    });
    sweep.push(sweepPoint("ours", threads, turns));
    if (binary) {
      log(`sweep: peer:default, ${threads} thread(s)`);
      const peerTurns = await withPeer(binary, options, threads, options.contextSize, 1, "default", false, (server) =>
        runScenario("a", peerSide(server, options.contextSize, settingsFor("a")), sweepRun),
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
    const turns = id === "e" ? options.editTurns : options.turns;
    const settings = settingsFor(id);
    const run = { turns, log: (line: string) => log(`  ${line}`) };
    const runs: RunResult[] = [];
    const plan = planScenarioRuns(id, options.specConfigs, options.repeats, binary !== undefined && best.peer !== undefined);
    for (const [i, planned] of plan.entries()) {
      const step = `scenario ${id} [${i + 1}/${plan.length}] ${planned.label}, repeat ${planned.repeat}`;
      const measureIdle = id === "a" && planned.repeat === 1;
      if (planned.config.side === "ours") {
        log(`${step}: ${best.ours} thread(s), context ${contextSize}`);
        const mode = planned.config.mode;
        const measured = await withOurEngine(options, best.ours, contextSize, mode, async (engine, enginePid) => {
          const result = await runScenario(id, ourSide(engine, settings), run);
          if (measureIdle && mode === "off") idle.ours = await idleCpuPercent(enginePid, 10_000);
          return result;
        });
        runs.push({ side: "ours", label: planned.label, config: specLabel(planned.config), main: planned.main, repeat: planned.repeat, threads: best.ours, turns: measured });
      } else if (binary && best.peer !== undefined) {
        const variant: PeerVariant = planned.variant ?? { label: "", slots: 1, fit: "prune" };
        const mode = planned.config.mode;
        log(`${step}: ${best.peer} thread(s), context ${contextSize} per slot`);
        const measured = await withPeer(binary, options, best.peer, contextSize, variant.slots, mode, planned.config.flashAttnOff === true, async (server) => {
          const result = await runScenario(id, peerSide(server, contextSize, settings, variant.fit), run);
          if (measureIdle && mode === "default" && idle.peer === undefined) idle.peer = await idleCpuPercent(server.pid, 10_000);
          return result;
        });
        runs.push({ side: "peer", label: planned.label, config: specLabel(planned.config), main: planned.main, repeat: planned.repeat, threads: best.peer, turns: measured });
      }
    }
    scenarios.push({ id, contextSize, turns, maxTokens: settings.maxTokens, runs });
  }

  return {
    date: new Date().toISOString(),
    machine: machineInfo(),
    model: options.modelPath.split("/").pop() ?? options.modelPath,
    draftModel: options.draftModelPath?.split("/").pop(),
    builds: { ours: oursDetails, peer: binary?.build },
    settings: {
      turns: options.turns,
      maxTokens: options.maxTokens,
      editTurns: options.editTurns,
      editMaxTokens: options.editMaxTokens,
      contextSize: options.contextSize,
      longContextSize: options.longContextSize,
      repeats: options.repeats,
      specConfigs: options.specConfigs.map(specLabel),
      peerDraftMax: options.peerDraftMax,
      sampling: "greedy",
    },
    sweep,
    best,
    idleCpuPercent: idle,
    scenarios,
  };
}
