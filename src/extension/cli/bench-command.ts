// `stateful-chat bench`: one conversation run twice on the same engine — stateful (prefill
// only new tokens) and naive (re-prefill everything) — reported as per-turn figures and
// ratios measured in the same run.

import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadEngine } from "../backends/load-engine";
import { Conversation } from "../core/conversation";
import type { Engine } from "../core/engine";
import type { TurnStats } from "../core/stats";
import { defaultModelPath } from "../models/default-model";
import { positiveInt, UsageError } from "./chat-args";
import { packageRoot } from "./package-root";

const MESSAGES = [
  "Explain what a hash map is.",
  "How does it handle collisions?",
  "Show a tiny Python example.",
  "What is the complexity of lookup?",
  "How does resizing work?",
  "Compare it with a binary search tree.",
];

export const BENCH_USAGE = "Usage: stateful-chat bench [--model PATH] [--turns N] [--max-tokens N] [--ctx N] [--threads N] [--json]";

interface BenchArgs {
  readonly model?: string;
  readonly turns: number;
  readonly maxTokens: number;
  readonly ctx: number;
  readonly threads?: number;
  readonly json: boolean;
}

function parseBenchArgs(argv: readonly string[]): BenchArgs {
  let values;
  try {
    values = parseArgs({
      args: [...argv],
      strict: true,
      options: {
        model: { type: "string" },
        turns: { type: "string" },
        "max-tokens": { type: "string" },
        ctx: { type: "string" },
        threads: { type: "string" },
        json: { type: "boolean", default: false },
      },
    }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const int = positiveInt;
  return {
    model: values.model,
    turns: int("turns", values.turns, 12)!,
    maxTokens: int("max-tokens", values["max-tokens"], 96)!,
    ctx: int("ctx", values.ctx, 8192)!,
    threads: int("threads", values.threads),
    json: values.json ?? false,
  };
}

async function conversation(engine: Engine, strategy: "stateful" | "naive", args: BenchArgs): Promise<TurnStats[]> {
  const chat = await Conversation.create(engine, { turn: { strategy, maxTokens: args.maxTokens } });
  const stats: TurnStats[] = [];
  try {
    for (let i = 0; i < args.turns; i++) stats.push(await chat.send({ text: MESSAGES[i % MESSAGES.length] }));
  } finally {
    await chat.dispose();
  }
  return stats;
}

const sum = (xs: readonly TurnStats[], f: (t: TurnStats) => number) => xs.reduce((a, t) => a + f(t), 0);

export async function runBench(argv: readonly string[]): Promise<number> {
  const args = parseBenchArgs(argv);
  const { engine } = await loadEngine({
    modelPath: args.model ?? defaultModelPath(packageRoot()),
    backend: "auto",
    contextSize: args.ctx,
    threads: args.threads,
    threadCalibrationFile: join(packageRoot(), ".cache", "llama-threads.json"),
  });
  try {
    await conversation(engine, "stateful", { ...args, turns: Math.min(2, args.turns) }); // warm-up
    const stateful = await conversation(engine, "stateful", args);
    const naive = await conversation(engine, "naive", args);
    const quarter = Math.floor((args.turns * 3) / 4);
    const summary = {
      event: "bench",
      model: engine.info.modelName,
      details: engine.info.details,
      turns: args.turns,
      prefilledStateful: sum(stateful, (t) => t.prefilled),
      prefilledNaive: sum(naive, (t) => t.prefilled),
      prefillRatio: sum(naive, (t) => t.prefilled) / sum(stateful, (t) => t.prefilled),
      lastQuarterTtftRatio: sum(naive.slice(quarter), (t) => t.ttftMs) / sum(stateful.slice(quarter), (t) => t.ttftMs),
      statefulTtftGrowth: stateful[args.turns - 1].ttftMs / stateful[Math.min(1, args.turns - 1)].ttftMs,
      naiveTtftGrowth: naive[args.turns - 1].ttftMs / naive[Math.min(1, args.turns - 1)].ttftMs,
      perTurn: stateful.map((s, i) => ({
        turn: i + 1,
        position: s.position,
        prefilled: [s.prefilled, naive[i].prefilled],
        ttftMs: [s.ttftMs, naive[i].ttftMs],
        decodeTokensPerSec: [s.decodeTokensPerSec, naive[i].decodeTokensPerSec],
      })),
    };
    if (args.json) {
      process.stdout.write(`${JSON.stringify(summary)}\n`);
      return 0;
    }
    const out = (line: string) => process.stdout.write(`${line}\n`);
    out(`${summary.model} · ${summary.details} · ${args.turns} turns, greedy, ${args.maxTokens} tokens max per reply\n`);
    out("turn | position | prefilled stateful / naive | first token ms stateful / naive | naive ÷ stateful");
    for (const t of summary.perTurn) {
      out(
        `${String(t.turn).padStart(4)} | ${String(t.position).padStart(8)} | ${String(t.prefilled[0]).padStart(8)} / ${String(t.prefilled[1]).padEnd(8)} | ` +
          `${t.ttftMs[0].toFixed(0).padStart(8)} / ${t.ttftMs[1].toFixed(0).padEnd(8)} | ${(t.ttftMs[1] / t.ttftMs[0]).toFixed(2)}×`,
      );
    }
    out(`\ntotal tokens prefilled: stateful ${summary.prefilledStateful}, naive ${summary.prefilledNaive} (${summary.prefillRatio.toFixed(1)}×)`);
    out(`first-token time, last quarter of the conversation: naive is ${summary.lastQuarterTtftRatio.toFixed(2)}× stateful`);
    out(`first-token time, last turn ÷ turn 2: stateful ${summary.statefulTtftGrowth.toFixed(2)}× (flat ≈ 1), naive ${summary.naiveTtftGrowth.toFixed(2)}×`);
    return 0;
  } finally {
    await engine.dispose();
  }
}
