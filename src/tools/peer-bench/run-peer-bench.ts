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
import { checkEqualTerms, equalTermsLine, greedyIdentity, withGaps, type EqualTermsCheck, type IdentityResult } from "./equal-terms";
import { runScenario, scenarioEqualTerms, usesEditSettings, type ScenarioId } from "./scenarios";
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
  /** The editing scenarios' turns and reply length (e, e-incremental, the edit-* chats). */
  readonly editTurns: number;
  readonly editMaxTokens: number;
  /** Context size of scenarios a–c. */
  readonly contextSize: number;
  /** Context size of the editing scenarios (e sends the whole file every turn: 12 turns pass 8192). */
  readonly editContextSize: number;
  /** Context size of scenario d (it must pass it). */
  readonly longContextSize: number;
  readonly threads: readonly number[];
  readonly sweepTurns: number;
  readonly peer: boolean;
  /** A llama-server binary to use instead of building one under cacheDir. */
  readonly peerBinary?: string;
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
  /** Whether every run was sent the same prompts, turn by turn (equal-terms.ts). */
  readonly equalTerms: EqualTermsCheck;
  /** Each speculative configuration's replies against its side's run without speculation. */
  readonly identity: readonly IdentityResult[];
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
    readonly editContextSize: number;
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

/**
 * Greedy identity, with the model's top-two probability gap at each run's first differing
 * token of ours: a speculation-off engine prefills the baseline's prompt and reply up to there
 * (loaded only when something differs).
 */
async function identityWithGaps(
  options: PeerBenchOptions,
  threads: number,
  contextSize: number,
  runs: readonly RunResult[],
  prompts: WeakMap<TurnMeasure, readonly number[]>,
  log: (line: string) => void,
): Promise<IdentityResult[]> {
  const identity = greedyIdentity(runs);
  const ours = identity.filter((r) => r.differences.some((d) => d.token !== undefined));
  if (ours.length === 0) return identity;
  log(`  greedy identity: ${ours.reduce((a, r) => a + r.differences.length, 0)} differing repl(ies) of ours; top-two gaps from a speculation-off engine`);
  const prefix = (result: IdentityResult, d: { turn: number; token?: number }) => {
    const baseline = runs.find((r) => `${r.label} (repeat ${r.repeat})` === result.baseline);
    const turn = baseline?.turns.find((t) => t.turn === d.turn);
    const prompt = turn && prompts.get(turn);
    return prompt && turn.replyTokenIds && d.token !== undefined ? [...prompt, ...turn.replyTokenIds.slice(0, d.token)] : undefined;
  };
  try {
    return await withOurEngine(options, threads, contextSize, "off", async (engine) => {
      const gapAt = async (tokens: readonly number[]) => {
        const state = await engine.createState();
        try {
          if (!state.evaluateTopK) throw new Error("no evaluateTopK");
          const top = await state.evaluateTopK(tokens, 2);
          return top.length < 2 ? 1 : top[0][1] - top[1][1];
        } finally {
          await state.dispose();
        }
      };
      const withGap = await withGaps(ours, prefix, gapAt);
      return identity.map((r) => withGap.find((g) => g.label === r.label && g.repeat === r.repeat) ?? r);
    });
  } catch (error) {
    log(`  greedy identity: gaps not available (${error instanceof Error ? error.message : String(error)})`);
    return identity;
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
  const binary: PeerBinary | undefined = !options.peer
    ? undefined
    : options.peerBinary
      ? { path: options.peerBinary, build: `llama-server at ${options.peerBinary} (--peer-binary)` }
      : await ensureLlamaServer(options.cacheDir, { log });
  const sweep: SweepPoint[] = [];
  let oursDetails = "";
  const settingsFor = (id: ScenarioId): ChatSettings => ({ systemPrompt: options.systemPrompt, maxTokens: usesEditSettings(id) ? options.editMaxTokens : options.maxTokens });
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
    const contextSize = id === "d" ? options.longContextSize : usesEditSettings(id) ? options.editContextSize : options.contextSize;
    const turns = usesEditSettings(id) ? options.editTurns : options.turns;
    const settings = settingsFor(id);
    const run = { turns, log: (line: string) => log(`  ${line}`) };
    const runs: RunResult[] = [];
    const prompts = new WeakMap<TurnMeasure, readonly number[]>();
    const plan = planScenarioRuns(id, options.specConfigs, options.repeats, binary !== undefined && best.peer !== undefined);
    for (const [i, planned] of plan.entries()) {
      const step = `scenario ${id} [${i + 1}/${plan.length}] ${planned.label}, repeat ${planned.repeat}`;
      const measureIdle = id === "a" && planned.repeat === 1;
      if (planned.config.side === "ours") {
        log(`${step}: ${best.ours} thread(s), context ${contextSize}`);
        const mode = planned.config.mode;
        const measured = await withOurEngine(options, best.ours, contextSize, mode, async (engine, enginePid) => {
          const result = await runScenario(id, ourSide(engine, settings, prompts), run);
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
    const checked = runs.filter((r) => r.main);
    const equalTerms = checkEqualTerms(checked, scenarioEqualTerms(id));
    const identity = await identityWithGaps(options, best.ours, contextSize, checked, prompts, log);
    log(`scenario ${id}: ${equalTermsLine(equalTerms)}`);
    scenarios.push({ id, contextSize, turns, maxTokens: settings.maxTokens, runs, equalTerms, identity });
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
      editContextSize: options.editContextSize,
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
