// `npm run bench`: the mission's claim in one run on the default model — with a stateful
// session, turn N's time to first token stays flat; with naive re-prefill it grows with the
// conversation. Reported as ratios measured in the same run (no absolute thresholds).

import { LlamaEngine } from "../../src/extension/backends/llamacpp/llama-engine";
import { ChatSession } from "../../src/extension/core/chat-session";
import type { TurnStats } from "../../src/extension/core/stats";
import { defaultModelFile } from "../support/default-model";

const TURNS = Number(process.env.BENCH_TURNS ?? 12);
const MESSAGES = [
  "Explain what a hash map is.",
  "How does it handle collisions?",
  "Show a tiny Python example.",
  "What is the complexity of lookup?",
  "How does resizing work?",
  "Compare it with a binary search tree.",
];

async function conversation(engine: LlamaEngine, strategy: "stateful" | "naive"): Promise<TurnStats[]> {
  const chat = await ChatSession.create(engine, { turn: { strategy, maxTokens: 96 } });
  const stats: TurnStats[] = [];
  try {
    for (let i = 0; i < TURNS; i++) stats.push(await chat.send({ text: MESSAGES[i % MESSAGES.length] }));
  } finally {
    await chat.dispose();
  }
  return stats;
}

async function main(): Promise<void> {
  const engine = await LlamaEngine.load({ modelPath: defaultModelFile(), contextSize: 8192 });
  try {
    await conversation(engine, "stateful"); // warm-up
    const stateful = await conversation(engine, "stateful");
    const naive = await conversation(engine, "naive");
    console.log(`${engine.info.modelName} · ${engine.info.details} · ${TURNS} turns, greedy, 96 tokens max per reply\n`);
    console.log("turn | position | prefilled stateful / naive | first token ms stateful / naive | naive ÷ stateful");
    for (let i = 0; i < TURNS; i++) {
      const s = stateful[i];
      const n = naive[i];
      console.log(
        `${String(i + 1).padStart(4)} | ${String(s.position).padStart(8)} | ${String(s.prefilled).padStart(8)} / ${String(n.prefilled).padEnd(8)} | ` +
          `${s.ttftMs.toFixed(0).padStart(8)} / ${n.ttftMs.toFixed(0).padEnd(8)} | ${(n.ttftMs / s.ttftMs).toFixed(2)}×`,
      );
    }
    const sum = (xs: TurnStats[], f: (t: TurnStats) => number) => xs.reduce((a, t) => a + f(t), 0);
    const lastQuarter = (xs: TurnStats[]) => xs.slice(Math.floor((TURNS * 3) / 4));
    console.log(`\ntotal tokens prefilled: stateful ${sum(stateful, (t) => t.prefilled)}, naive ${sum(naive, (t) => t.prefilled)} (${(sum(naive, (t) => t.prefilled) / sum(stateful, (t) => t.prefilled)).toFixed(1)}×)`);
    console.log(
      `first-token time, last quarter of the conversation: naive is ${(sum(lastQuarter(naive), (t) => t.ttftMs) / sum(lastQuarter(stateful), (t) => t.ttftMs)).toFixed(2)}× stateful`,
    );
    console.log(
      `stateful first-token time, last turn ÷ turn 2: ${(stateful[TURNS - 1].ttftMs / stateful[1].ttftMs).toFixed(2)}× (flat ≈ 1); naive: ${(naive[TURNS - 1].ttftMs / naive[1].ttftMs).toFixed(2)}×`,
    );
  } finally {
    await engine.dispose();
  }
}

void main();
