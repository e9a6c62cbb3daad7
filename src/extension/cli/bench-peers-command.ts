// `stateful-chat bench --peers`: our core against llama-server on the same GGUF, threads
// and sampling (see src/extension/peer-bench/). Writes JSON, Markdown and SVG plots.

import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_TURN_OPTIONS } from "../core/chat-session";
import { defaultModelPath } from "../models/default-model";
import { PeerUnavailableError } from "../peer-bench/llama-server-binary";
import { markdownReport, writeReport } from "../peer-bench/report";
import { runPeerBench } from "../peer-bench/run-peer-bench";
import type { ScenarioId } from "../peer-bench/scenarios";
import { positiveInt, UsageError } from "./chat-args";
import { packageRoot } from "./package-root";

export const BENCH_PEERS_USAGE = `Usage: stateful-chat bench --peers [--model PATH] [--turns N] [--max-tokens N] [--ctx N] [--long-ctx N]
                                  [--threads N] [--sweep-turns N] [--scenarios a,b,c,d] [--no-peer] [--in-process] [--out DIR] [--json]`;

const SCENARIOS: readonly ScenarioId[] = ["a", "b", "c", "d"];

function parseScenarios(value: string | undefined): ScenarioId[] {
  if (value === undefined) return [...SCENARIOS];
  const ids = value.split(",").map((s) => s.trim()).filter(Boolean);
  for (const id of ids) {
    if (!(SCENARIOS as readonly string[]).includes(id)) throw new UsageError(`--scenarios takes letters from a,b,c,d, got "${id}"`);
  }
  return ids as ScenarioId[];
}

export async function runBenchPeers(argv: readonly string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        peers: { type: "boolean" },
        model: { type: "string" },
        turns: { type: "string" },
        "max-tokens": { type: "string" },
        ctx: { type: "string" },
        "long-ctx": { type: "string" },
        threads: { type: "string" },
        "sweep-turns": { type: "string" },
        scenarios: { type: "string" },
        "no-peer": { type: "boolean", default: false },
        "in-process": { type: "boolean", default: false },
        out: { type: "string" },
        json: { type: "boolean", default: false },
      },
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const root = packageRoot();
  const threads = positiveInt("threads", values.threads);
  const cores = availableParallelism();
  const out = resolve(values.out ?? join(root, "bench-results"));
  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    const result = await runPeerBench({
      modelPath: values.model ?? defaultModelPath(root),
      turns: positiveInt("turns", values.turns, 30)!,
      maxTokens: positiveInt("max-tokens", values["max-tokens"], 64)!,
      contextSize: positiveInt("ctx", values.ctx, 8192)!,
      longContextSize: positiveInt("long-ctx", values["long-ctx"], 1024)!,
      threads: threads ? [threads] : Array.from({ length: cores }, (_, i) => i + 1),
      sweepTurns: positiveInt("sweep-turns", values["sweep-turns"], 8)!,
      peer: !values["no-peer"],
      inProcess: values["in-process"] ?? false,
      scenarios: parseScenarios(values.scenarios),
      cacheDir: join(root, ".cache", "peer"),
      systemPrompt: DEFAULT_TURN_OPTIONS.systemPrompt,
      log,
    });
    const command = `stateful-chat bench --peers ${argv.filter((a) => a !== "--peers").join(" ")}`.trim();
    const files = await writeReport(out, result, command);
    if (values.json) process.stdout.write(`${JSON.stringify({ event: "bench-peers", ...result, files })}\n`);
    else process.stdout.write(markdownReport(result, command, `${out}/`));
    log(`wrote ${files.length} files to ${out}`);
    return 0;
  } catch (error) {
    if (error instanceof PeerUnavailableError) {
      process.stderr.write(`llama-server unavailable: ${error.message}\n(run with --no-peer to measure our side alone)\n`);
      return 1;
    }
    throw error;
  }
}
