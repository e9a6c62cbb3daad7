// `node --import tsx test/bench/speculation-identity.ts [--model PATH] [--draft-model PATH]
//   [--scenarios a,c,e] [--modes off,lookup,draft] [--turns 30] [--threads 2] [--ctx 8192] [--json FILE]`
// Speculation changes the speed, never the output: the peer bench's scenarios replayed greedy
// with --speculative off and with each speculative mode, on the same GGUF, comparing the
// session's whole ledger (every prompt and reply token) after every turn. A difference is
// reported with where it starts and the target's own top-2 probability gap there (from a fresh
// prefill of the common prefix on the `off` engine): a near-tie that the batch kernels of a
// verify and the single-token kernels of a decode round apart, or a real fault. Not part of
// `npm test` (a 30-turn run on a real 1.5B model takes minutes); the tests check the same
// property on shorter chats.

import { writeFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { loadEngine } from "../../src/extension/backends/load-engine";
import { DEFAULT_TURN_OPTIONS } from "../../src/extension/core/conversation";
import type { Engine } from "../../src/extension/core/engine";
import type { SpeculativeMode } from "../../src/extension/core/speculation/modes";
import { OurChat } from "../../src/tools/peer-bench/our-chat";
import { runScenario, isScenarioId, type ScenarioId, type ScenarioSide } from "../../src/tools/peer-bench/scenarios";
import { defaultModelFile } from "../support/default-model";
import { freshDistributionAt, topGap } from "../support/instrumented-engine";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    "draft-model": { type: "string" },
    scenarios: { type: "string", default: "a,c,e" },
    modes: { type: "string" },
    turns: { type: "string", default: "30" },
    threads: { type: "string", default: "2" },
    ctx: { type: "string", default: "8192" },
    json: { type: "string" },
  },
});
const modelPath = values.model ?? defaultModelFile();
const draftModelPath = values["draft-model"];
const scenarios = values.scenarios!.split(",").map((s) => {
  if (!isScenarioId(s)) throw new Error(`unknown scenario ${s}`);
  return s;
});
const modes = (values.modes ?? (draftModelPath ? "off,lookup,draft" : "off,lookup")).split(",") as SpeculativeMode[];
if (modes[0] !== "off") throw new Error("--modes starts with off (the reference)");
const turns = Number(values.turns);
const threads = Number(values.threads);
const contextSize = Number(values.ctx);

interface Run {
  readonly mode: SpeculativeMode;
  /** The ledger after each turn. */
  readonly ledgers: number[][];
  readonly replyTokens: number;
  readonly drafted: number;
  readonly accepted: number;
  readonly steps: number;
  readonly seconds: number;
}

async function load(mode: SpeculativeMode): Promise<Engine> {
  return (await loadEngine({ modelPath, backend: "llamacpp", contextSize, threads, speculative: mode, draftModelPath: mode === "off" ? undefined : draftModelPath })).engine;
}

async function replay(id: ScenarioId, engine: Engine, mode: SpeculativeMode): Promise<Run> {
  const ledgers: number[][] = [];
  let drafted = 0;
  let accepted = 0;
  let steps = 0;
  let replyTokens = 0;
  const maxTokens = id === "e" ? 160 : id.startsWith("edit-") ? 192 : 64;
  const side: ScenarioSide = {
    context: "incremental",
    countTokens: (text) => engine.tokenizer.encode(text, { specials: false }).length,
    open: async (chat) => {
      const ours = await OurChat.create(engine, { systemPrompt: DEFAULT_TURN_OPTIONS.systemPrompt, maxTokens, chat });
      return {
        send: async (text, context) => {
          const measure = await ours.send(text, context);
          ledgers.push([...ours.ledger]);
          replyTokens += measure.replyTokens;
          drafted += measure.speculation?.drafted ?? 0;
          accepted += measure.speculation?.accepted ?? 0;
          steps += measure.speculation?.steps ?? measure.replyTokens;
          return measure;
        },
        dispose: () => ours.dispose(),
      };
    },
  };
  const started = performance.now();
  await runScenario(id, side, { turns });
  return { mode, ledgers, replyTokens, drafted, accepted, steps, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

interface Difference {
  readonly turn: number;
  /** Index in the ledger of the first token that differs. */
  readonly at: number;
  readonly reference: number;
  readonly speculative: number;
  /** The target's top-2 probability gap at that position (a fresh prefill of the common prefix). */
  readonly gap: number;
  /** Both tokens are among the target's top two there. */
  readonly topTwo: boolean;
}

async function firstDifference(reference: Run, run: Run, engine: Engine): Promise<Difference | undefined> {
  for (let t = 0; t < reference.ledgers.length; t++) {
    const a = reference.ledgers[t];
    const b = run.ledgers[t] ?? [];
    let at = 0;
    while (at < a.length && at < b.length && a[at] === b[at]) at++;
    if (at === a.length && at === b.length) continue;
    const top = await freshDistributionAt(engine, a.slice(0, at));
    const ids = top.slice(0, 2).map(([token]) => token);
    return { turn: t + 1, at, reference: a[at], speculative: b[at], gap: Math.round(topGap(top) * 10_000) / 10_000, topTwo: ids.includes(a[at]) && ids.includes(b[at]) };
  }
  return undefined;
}

async function main(): Promise<void> {
  const report: unknown[] = [];
  for (const id of scenarios) {
    const reference = await load("off");
    const off = await replay(id, reference, "off");
    console.log(`scenario ${id}, off: ${off.ledgers.length} turns, ${off.replyTokens} reply tokens in ${off.seconds} s`);
    for (const mode of modes.slice(1)) {
      const engine = await load(mode);
      const run = await replay(id, engine, mode);
      await engine.dispose();
      const difference = await firstDifference(off, run, reference);
      const identicalTurns = difference ? difference.turn - 1 : off.ledgers.length;
      const perStep = run.steps > 0 ? Math.round(((run.steps + run.accepted) / run.steps) * 100) / 100 : 1;
      console.log(
        `scenario ${id}, ${mode}: ${identicalTurns}/${off.ledgers.length} turns identical token for token` +
          (difference ? ` (turn ${difference.turn}, token ${difference.at}: ${difference.reference} vs ${difference.speculative}, top-2 gap ${difference.gap}${difference.topTwo ? ", both in the top two" : ""})` : "") +
          `; ${run.accepted}/${run.drafted} drafted accepted, ${perStep} tokens per step, ${run.seconds} s`,
      );
      report.push({ scenario: id, mode, turns: off.ledgers.length, identicalTurns, difference, drafted: run.drafted, accepted: run.accepted, steps: run.steps, tokensPerStep: perStep, seconds: run.seconds, offSeconds: off.seconds });
    }
    await reference.dispose();
  }
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ model: basename(modelPath), draftModel: draftModelPath && basename(draftModelPath), turns, threads, contextSize, report }, null, 2)}\n`);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
