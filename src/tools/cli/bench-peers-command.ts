// `stateful-chat bench --peers`: our core against llama-server on the same GGUF, threads
// and sampling (see src/tools/peer-bench/). Writes JSON, Markdown and SVG plots.

import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_TURN_OPTIONS } from "../../extension/core/conversation";
import { defaultModelPath } from "../../extension/models/default-model";
import { BENCH_MODEL_SETS, ensureChunkedModel, isBenchModelSet, type BenchModelSet } from "../peer-bench/bench-models";
import { PeerUnavailableError } from "../peer-bench/llama-server-binary";
import { equalTermsFailed } from "../peer-bench/equal-terms";
import { markdownReport, writeReport } from "../peer-bench/report";
import { runPeerBench, type PeerBenchOptions } from "../peer-bench/run-peer-bench";
import { DEFAULT_SCENARIO_IDS, isScenarioId, SCENARIO_IDS, type ScenarioId } from "../peer-bench/scenarios";
import { parseSpecConfigs, SpecConfigError } from "../peer-bench/spec-configs";
import { positiveInt, UsageError } from "../../extension/cli/chat-args";
import { packageRoot } from "../../extension/cli/package-root";

export const BENCH_PEERS_USAGE = `Usage: stateful-chat bench --peers [--model PATH | --models qwen] [--draft-model PATH] [--turns N] [--max-tokens N]
                                  [--edit-turns N] [--edit-max-tokens N] [--ctx N] [--edit-ctx N] [--long-ctx N] [--threads N] [--sweep-turns N]
                                  [--scenarios a,b,c,d,e,e-incremental,edit-rewrite,edit-rename,edit-param,edit-fix|all | --scenario NAME]
                                  [--spec-configs ours:off,ours:lookup,peer:default,peer:ngram-simple,…|all]
                                  [--repeats N] [--peer-draft-max N] [--no-peer] [--peer-binary PATH] [--in-process] [--out DIR] [--json]
Exits 3 when a scenario meant to be on equal terms sent the sides different prompts.`;

function parseScenarios(value: string | undefined, single: string | undefined): ScenarioId[] {
  if (value !== undefined && single !== undefined) throw new UsageError("--scenarios and --scenario exclude each other");
  if (single !== undefined) {
    if (!isScenarioId(single)) throw new UsageError(`--scenario takes one of ${SCENARIO_IDS.join(", ")}, got "${single}"`);
    return [single];
  }
  if (value === undefined) return [...DEFAULT_SCENARIO_IDS];
  if (value.trim() === "all") return [...SCENARIO_IDS];
  const ids = value.split(",").map((s) => s.trim()).filter(Boolean);
  for (const id of ids) if (!isScenarioId(id)) throw new UsageError(`--scenarios takes names from ${SCENARIO_IDS.join(",")} (or all), got "${id}"`);
  return [...new Set(ids)] as ScenarioId[];
}

/** What the command line asks for; models named by `models` are fetched before the run. */
export type BenchPeersArgs = Omit<PeerBenchOptions, "modelPath" | "draftModelPath" | "cacheDir" | "systemPrompt" | "log" | "specConfigs"> & {
  readonly model?: string;
  readonly draftModel?: string;
  readonly models?: BenchModelSet;
  readonly specConfigs?: string;
  readonly out?: string;
  readonly json: boolean;
};

export function parseBenchPeersArgs(argv: readonly string[], cores: number): BenchPeersArgs {
  let values;
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        peers: { type: "boolean" },
        model: { type: "string" },
        models: { type: "string" },
        "draft-model": { type: "string" },
        turns: { type: "string" },
        "max-tokens": { type: "string" },
        "edit-turns": { type: "string" },
        "edit-max-tokens": { type: "string" },
        ctx: { type: "string" },
        "long-ctx": { type: "string" },
        "edit-ctx": { type: "string" },
        threads: { type: "string" },
        "sweep-turns": { type: "string" },
        scenarios: { type: "string" },
        scenario: { type: "string" },
        "peer-binary": { type: "string" },
        "spec-configs": { type: "string" },
        repeats: { type: "string" },
        "peer-draft-max": { type: "string" },
        "no-peer": { type: "boolean", default: false },
        "in-process": { type: "boolean", default: false },
        out: { type: "string" },
        json: { type: "boolean", default: false },
      },
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const models = values.models;
  if (models !== undefined && !isBenchModelSet(models)) throw new UsageError(`--models takes ${Object.keys(BENCH_MODEL_SETS).join(", ")}, got "${models}"`);
  if (models !== undefined && values.model !== undefined) throw new UsageError("--models and --model exclude each other");
  const threads = positiveInt("threads", values.threads);
  return {
    model: values.model,
    models,
    draftModel: values["draft-model"],
    turns: positiveInt("turns", values.turns, 30)!,
    maxTokens: positiveInt("max-tokens", values["max-tokens"], 64)!,
    editTurns: positiveInt("edit-turns", values["edit-turns"], 12)!,
    editMaxTokens: positiveInt("edit-max-tokens", values["edit-max-tokens"], 192)!,
    contextSize: positiveInt("ctx", values.ctx, 8192)!,
    editContextSize: positiveInt("edit-ctx", values["edit-ctx"], 16384)!,
    longContextSize: positiveInt("long-ctx", values["long-ctx"], 1024)!,
    threads: threads ? [threads] : Array.from({ length: cores }, (_, i) => i + 1),
    sweepTurns: positiveInt("sweep-turns", values["sweep-turns"], 8)!,
    scenarios: parseScenarios(values.scenarios, values.scenario),
    specConfigs: values["spec-configs"],
    repeats: positiveInt("repeats", values.repeats, 3)!,
    peerDraftMax: positiveInt("peer-draft-max", values["peer-draft-max"], 8)!,
    peer: !values["no-peer"],
    peerBinary: values["peer-binary"],
    inProcess: values["in-process"] ?? false,
    out: values.out,
    json: values.json ?? false,
  };
}

export async function runBenchPeers(argv: readonly string[]): Promise<number> {
  const args = parseBenchPeersArgs(argv, availableParallelism());
  const root = packageRoot();
  const out = resolve(args.out ?? join(root, "bench-results"));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    let modelPath = args.model ?? defaultModelPath(root);
    let draftModelPath = args.draftModel;
    if (args.models) {
      const set = BENCH_MODEL_SETS[args.models];
      const cache = join(root, ".cache", "bench-models");
      modelPath = await ensureChunkedModel(set.target, cache, log);
      draftModelPath ??= await ensureChunkedModel(set.draft, cache, log);
    }
    let specConfigs;
    try {
      specConfigs = parseSpecConfigs(args.specConfigs, draftModelPath !== undefined);
    } catch (error) {
      if (error instanceof SpecConfigError) throw new UsageError(error.message);
      throw error;
    }
    const result = await runPeerBench({
      ...args,
      modelPath,
      draftModelPath,
      specConfigs,
      cacheDir: join(root, ".cache", "peer"),
      systemPrompt: DEFAULT_TURN_OPTIONS.systemPrompt,
      log,
    });
    const command = `stateful-chat bench --peers ${argv.filter((a) => a !== "--peers").join(" ")}`.trim();
    const files = await writeReport(out, result, command);
    if (args.json) process.stdout.write(`${JSON.stringify({ event: "bench-peers", ...result, files })}\n`);
    else process.stdout.write(markdownReport(result, command, `${out}/`));
    log(`wrote ${files.length} files to ${out}`);
    const unequal = result.scenarios.filter((s) => equalTermsFailed(s.equalTerms)).map((s) => s.id);
    if (unequal.length > 0) {
      log(`equal terms: no in ${unequal.join(", ")}: the sides were sent different prompts (see the report)`);
      return 3;
    }
    return 0;
  } catch (error) {
    if (error instanceof PeerUnavailableError) {
      process.stderr.write(`llama-server unavailable: ${error.message}\n(run with --no-peer to measure our side alone)\n`);
      return 1;
    }
    throw error;
  }
}
