// `node --import tsx test/bench/divergence-probe.ts --model GGUF --scenario edit-rewrite --turn 7
//   --token 78 [--threads 2] [--ctx 16384] [--expect FILE]`
// Where a speculative run's greedy reply parts from `off`'s, which computation is off? Replays
// the scenario with speculation off (as the peer bench's `ours:off` does) up to the turn, then
// asks the model for its distribution at the reply's token as each kernel path computes it:
// a fresh prefill of everything before it (one batch, as the bench's gap), a cache holding all
// but the last token and that token decoded alone (a plain decode), and batches of 4, 8 and 16
// ending there (a verify step's shapes). Run it with STATEFUL_CHAT_LLAMA_BUILD=prebuilt to see
// node-llama-cpp's binary (no grouped flash-attention patch) on the same prefix. --expect names
// a peer-bench JSON whose `ours:off` replies the replay must reproduce up to the turn.

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { loadEngine } from "../../src/extension/backends/load-engine";
import { DEFAULT_TURN_OPTIONS } from "../../src/extension/core/conversation";
import type { Engine } from "../../src/extension/core/engine";
import { OurChat } from "../../src/tools/peer-bench/our-chat";
import { isScenarioId, runScenario, type ScenarioId, type ScenarioSide } from "../../src/tools/peer-bench/scenarios";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: ".cache/bench-models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" },
    scenario: { type: "string", default: "edit-rewrite" },
    turn: { type: "string", default: "7" },
    token: { type: "string", default: "78" },
    threads: { type: "string", default: "2" },
    ctx: { type: "string", default: "16384" },
    expect: { type: "string" },
  },
});
const scenarioArg = values.scenario!;
if (!isScenarioId(scenarioArg)) throw new Error(`unknown scenario ${scenarioArg}`);
const scenario: ScenarioId = scenarioArg;
const turn = Number(values.turn);
const token = Number(values.token);

type Top = ReadonlyArray<readonly [number, number]>;

async function topAfter(engine: Engine, cached: readonly number[], batch: readonly number[]): Promise<Top> {
  const state = await engine.createState();
  try {
    if (!state.evaluateTopK) throw new Error("no evaluateTopK");
    if (cached.length > 0) await state.evaluateTopK(cached, 1);
    return await state.evaluateTopK(batch, 5);
  } finally {
    await state.dispose();
  }
}

async function main(): Promise<void> {
  const { engine } = await loadEngine({ modelPath: values.model!, backend: "llamacpp", contextSize: Number(values.ctx), threads: Number(values.threads), speculative: "off" });
  console.log(engine.info.details);
  const turns: { prompt: number[]; reply: number[]; text: string }[] = [];
  const side: ScenarioSide = {
    context: "incremental",
    countTokens: (text) => engine.tokenizer.encode(text, { specials: false }).length,
    open: async (chat) => {
      const ours = await OurChat.create(engine, { systemPrompt: DEFAULT_TURN_OPTIONS.systemPrompt, maxTokens: scenario.startsWith("edit-") ? 192 : 64, chat });
      return {
        send: async (text, context) => {
          const measure = await ours.send(text, context);
          turns.push({ prompt: ours.ledger.slice(0, measure.promptTokens), reply: [...(measure.replyTokenIds ?? [])], text: measure.reply ?? "" });
          return measure;
        },
        dispose: () => ours.dispose(),
      };
    },
  };
  await runScenario(scenario, side, { turns: turn });
  if (values.expect) {
    const recorded = JSON.parse(readFileSync(values.expect, "utf8")) as { scenarios: { id: string; runs: { label: string; turns: { turn: number; replyTokenIds?: number[] }[] }[] }[] };
    const off = recorded.scenarios.find((s) => s.id === scenario)?.runs.find((r) => r.label === "ours:off");
    for (const [i, t] of turns.entries()) {
      const want = off?.turns.find((x) => x.turn === i + 1)?.replyTokenIds;
      const same = want !== undefined && want.length === t.reply.length && want.every((id, j) => id === t.reply[j]);
      console.log(`turn ${i + 1}: the replay's reply ${same ? "matches" : "DIFFERS from"} the recorded ours:off reply`);
    }
  }
  const last = turns[turn - 1]!;
  const prefix = [...last.prompt, ...last.reply.slice(0, token)];
  const chosen = last.reply[token];
  const show = (top: Top) => top.map(([id, p]) => `${id}${id === chosen ? "*" : ""} ${JSON.stringify(engine.tokenizer.decode([id]))} ${p.toFixed(4)}`).join(", ");
  console.log(`prefix ${prefix.length} tokens; off decoded token ${chosen} ${JSON.stringify(engine.tokenizer.decode([chosen!]))} (marked *)`);
  console.log(`reply so far: …${JSON.stringify(engine.tokenizer.decode(last.reply.slice(Math.max(0, token - 24), token)))}`);
  console.log(`fresh prefill, one batch:   ${show(await topAfter(engine, [], prefix))}`);
  console.log(`cache + decode of the last: ${show(await topAfter(engine, prefix.slice(0, -1), prefix.slice(-1)))}`);
  for (const k of [4, 8, 16]) console.log(`cache + batch of ${String(k).padStart(2)}:        ${show(await topAfter(engine, prefix.slice(0, -k), prefix.slice(-k)))}`);
  await engine.dispose();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
