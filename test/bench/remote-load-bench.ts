// Load run for the remote backend (a benchmark, not a test): N concurrent `stateful-chat chat
// --backend remote` processes × 10 turns against one llama-server with 8 slots, N = 1, 4, 8,
// beside the same chats sent as plain OpenAI chat completions (the whole history each turn,
// as a stateless client sends it). Reported per N and side: lost turns, the server's own
// count of reused prompt tokens per turn against the previous turn's position, first-token
// time and decode speed per chat, wall time and aggregate reply tokens per second.
//
//   npm run build && node --import tsx test/bench/remote-load-bench.ts [--chats 1,4,8] [--turns 10] [--max-tokens 64] [--model PATH]
//
// The default model is SmolLM2-135M: the 1.5B model decodes too slowly on a 2-core machine
// for 8 chats × 10 turns to finish in reasonable time (and would measure the CPU, not the
// protocol). Results go to test/bench/results/remote-load.{json,md}.

import { mkdir, writeFile } from "node:fs/promises";
import { availableParallelism, cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CODING_QUESTIONS } from "../../src/tools/peer-bench/coding-questions";
import { ensureLlamaServer } from "../../src/tools/peer-bench/llama-server-binary";
import { LlamaServerProcess } from "../../src/tools/peer-bench/llama-server-process";
import { PeerChat } from "../../src/tools/peer-bench/peer-chat";
import { defaultModelFile, repoRoot } from "../support/default-model";
import { runCli } from "../support/run-cli";

interface Turn {
  readonly chat: number;
  readonly turn: number;
  readonly ok: boolean;
  /** The server's count of reused prompt tokens. */
  readonly serverCached: number;
  /** Tokens the conversation held after the previous turn (0 on the first). */
  readonly previousPosition: number;
  readonly position: number;
  readonly ttftMs: number;
  readonly decodeTokensPerSec: number;
  readonly replyTokens: number;
  readonly error?: string;
}

interface SideRun {
  readonly side: "ours (remote backend)" | "plain OpenAI chat completions";
  readonly chats: number;
  readonly wallMs: number;
  /** The machine's 1-minute load average before and after (a shared machine's other work shows here). */
  loadBefore?: number;
  loadAfter?: number;
  readonly turns: readonly Turn[];
}

const { values } = parseArgs({
  options: {
    chats: { type: "string", default: "1,4,8" },
    turns: { type: "string", default: "10" },
    "max-tokens": { type: "string", default: "64" },
    model: { type: "string" },
    slots: { type: "string", default: "8" },
    ctx: { type: "string", default: "2048" },
    threads: { type: "string", default: String(Math.max(1, availableParallelism())) },
    out: { type: "string", default: join(repoRoot, "test", "bench", "results") },
  },
});
const chatCounts = values.chats!.split(",").map(Number);
const turnCount = Number(values.turns);
const maxTokens = Number(values["max-tokens"]);
const contextPerSlot = Number(values.ctx);
const slots = Number(values.slots);
const modelPath = values.model ?? defaultModelFile();
const SYSTEM = "You are a helpful coding assistant. Answer concisely and put code in fenced code blocks.";

function questionsOf(chat: number): string[] {
  return Array.from({ length: turnCount }, (_, i) => CODING_QUESTIONS[(chat * 3 + i) % CODING_QUESTIONS.length]);
}

/** A prefix no earlier run shares, so every run starts from a cold cache for its conversations. */
function systemPrompt(run: string, chat: number): string {
  return `[${run}-${chat}] ${SYSTEM}`;
}

async function ours(url: string, chats: number, run: string): Promise<SideRun> {
  const start = performance.now();
  const runs = await Promise.all(
    Array.from({ length: chats }, (_, chat) =>
      runCli(["chat", "--json", "--backend", "remote", "--server", url, "--model", modelPath, "--max-tokens", String(maxTokens), "--ctx", String(contextPerSlot), "--system", systemPrompt(run, chat)], questionsOf(chat)),
    ),
  );
  const wallMs = performance.now() - start;
  const turns: Turn[] = [];
  runs.forEach((result, chat) => {
    let previous = 0;
    let turn = 0;
    for (const event of result.events) {
      if (event.event === "turn") {
        const position = event.position as number;
        turns.push({
          chat,
          turn: ++turn,
          ok: true,
          serverCached: (event.serverCached as number | undefined) ?? 0,
          previousPosition: previous,
          position,
          ttftMs: event.ttftMs as number,
          decodeTokensPerSec: event.decodeTokensPerSec as number,
          replyTokens: event.replyTokens as number,
        });
        previous = position;
      } else if (event.event === "error") {
        turns.push({ chat, turn: ++turn, ok: false, serverCached: 0, previousPosition: previous, position: previous, ttftMs: 0, decodeTokensPerSec: 0, replyTokens: 0, error: `${String(event.code)}: ${String(event.message)}` });
      }
    }
    if (result.code !== 0) process.stderr.write(`chat ${chat} exited ${result.code}: ${result.stderr.slice(-500)}\n`);
  });
  return { side: "ours (remote backend)", chats, wallMs, turns };
}

async function plainOpenAi(url: string, chats: number, run: string): Promise<SideRun> {
  const start = performance.now();
  const perChat = await Promise.all(
    Array.from({ length: chats }, async (_, chat) => {
      const client = new PeerChat({ baseUrl: url, systemPrompt: systemPrompt(run, chat), maxTokens, capacity: contextPerSlot, chat, fit: "none" });
      const turns: Turn[] = [];
      let previous = 0;
      for (const [i, question] of questionsOf(chat).entries()) {
        try {
          const measure = await client.send(question);
          turns.push({
            chat,
            turn: i + 1,
            ok: !measure.failed,
            serverCached: measure.cached,
            previousPosition: previous,
            position: measure.contextFill,
            ttftMs: measure.ttftMs,
            decodeTokensPerSec: measure.decodeTokensPerSec,
            replyTokens: measure.replyTokens,
            error: measure.failed ? measure.note : undefined,
          });
          previous = measure.contextFill;
        } catch (error) {
          turns.push({ chat, turn: i + 1, ok: false, serverCached: 0, previousPosition: previous, position: previous, ttftMs: 0, decodeTokensPerSec: 0, replyTokens: 0, error: String(error) });
        }
      }
      return turns;
    }),
  );
  return { side: "plain OpenAI chat completions", chats, wallMs: performance.now() - start, turns: perChat.flat() };
}

const median = (xs: readonly number[]) => {
  if (xs.length === 0) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const fixed = (x: number, digits = 1) => x.toFixed(digits);

function summarize(run: SideRun) {
  const expected = run.chats * turnCount;
  const ok = run.turns.filter((t) => t.ok);
  const later = ok.filter((t) => t.turn > 1 && t.previousPosition > 0);
  const reuse = later.map((t) => t.serverCached / t.previousPosition);
  const exact = later.filter((t) => t.serverCached === t.previousPosition).length;
  const perChat = Array.from({ length: run.chats }, (_, chat) => ok.filter((t) => t.chat === chat));
  const replyTokens = ok.reduce((sum, t) => sum + t.replyTokens, 0);
  return {
    side: run.side,
    chats: run.chats,
    lostTurns: expected - ok.length,
    reuseMin: reuse.length ? Math.min(...reuse) : 0,
    reuseMean: mean(reuse),
    turnsAtLeast95: reuse.filter((r) => r >= 0.95).length,
    exactTurns: exact,
    laterTurns: later.length,
    // Turn 1 apart: ours includes each CLI process's cold start (its first render and request).
    ttftFirstMedianMs: median(ok.filter((t) => t.turn === 1).map((t) => t.ttftMs)),
    ttftMedianMs: median(ok.filter((t) => t.turn > 1).map((t) => t.ttftMs)),
    ttftPerChatMs: perChat.map((turns) => Math.round(mean(turns.filter((t) => t.turn > 1).map((t) => t.ttftMs)))),
    decodePerChat: perChat.map((turns) => Math.round(mean(turns.map((t) => t.decodeTokensPerSec)) * 10) / 10),
    wallS: run.wallMs / 1000,
    load: `${run.loadBefore ?? "?"} → ${run.loadAfter ?? "?"}`,
    aggregateTokensPerSec: replyTokens / (run.wallMs / 1000),
    errors: run.turns.filter((t) => !t.ok).map((t) => `chat ${t.chat} turn ${t.turn}: ${t.error}`),
  };
}

async function main(): Promise<void> {
  const binary = await ensureLlamaServer(join(repoRoot, ".cache", "peer"), { log: (line) => process.stderr.write(`${line}\n`) });
  const threads = Number(values.threads);
  const server = await LlamaServerProcess.start({ binary: binary.path, modelPath, contextSize: contextPerSlot, threads, slots });
  const runs: SideRun[] = [];
  const stamp = Date.now().toString(36);
  try {
    for (const chats of chatCounts) {
      for (const side of [ours, plainOpenAi]) {
        process.stderr.write(`${side === ours ? "ours" : "plain OpenAI"}: ${chats} chat(s) × ${turnCount} turns…\n`);
        const loadBefore = loadavg()[0];
        const run = await side(server.baseUrl, chats, `${stamp}-${chats}-${side === ours ? "o" : "p"}`);
        run.loadBefore = Math.round(loadBefore * 10) / 10;
        run.loadAfter = Math.round(loadavg()[0] * 10) / 10;
        runs.push(run);
        const s = summarize(run);
        process.stderr.write(`  lost ${s.lostTurns}, reuse min ${fixed(s.reuseMin * 100)}% mean ${fixed(s.reuseMean * 100)}%, ttft median turn 1 ${Math.round(s.ttftFirstMedianMs)} ms, later ${Math.round(s.ttftMedianMs)} ms, wall ${fixed(s.wallS)} s\n`);
      }
    }
  } finally {
    await server.stop();
  }
  const summaries = runs.map(summarize);
  const machine = `${cpus()[0]?.model ?? "?"}, ${availableParallelism()} cores`;
  const lines = [
    `Remote load run: ${modelPath.split("/").pop()}, llama-server ${binary.build}, -np ${slots}, ${contextPerSlot} tokens per slot, ${threads} threads, ${machine}; ${turnCount} turns per chat, ${maxTokens}-token replies, greedy; ${new Date().toISOString()}.`,
    "",
    "| side | chats | lost turns | server reuse of the previous position, turns 2+ (min / mean; turns ≥ 95%; exact) | first token, turn 1 median (ms) | first token, turns 2+ median (ms) | first token per chat, turns 2+ mean (ms) | decode per chat (tok/s) | wall (s) | reply tok/s, all chats | load avg before → after |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...summaries.map((s) =>
      `| ${s.side} | ${s.chats} | ${s.lostTurns} | ${fixed(s.reuseMin * 100)}% / ${fixed(s.reuseMean * 100)}%; ${s.turnsAtLeast95}/${s.laterTurns}; ${s.exactTurns}/${s.laterTurns} | ${Math.round(s.ttftFirstMedianMs)} | ${Math.round(s.ttftMedianMs)} | ${s.ttftPerChatMs.join(", ")} | ${s.decodePerChat.join(", ")} | ${fixed(s.wallS)} | ${fixed(s.aggregateTokensPerSec)} | ${s.load} |`,
    ),
    ...summaries.flatMap((s) => (s.errors.length ? ["", `Errors (${s.side}, ${s.chats} chats): ${s.errors.join("; ")}`] : [])),
  ];
  await mkdir(values.out!, { recursive: true });
  await writeFile(join(values.out!, "remote-load.json"), JSON.stringify({ machine, model: modelPath, build: binary.build, slots, contextPerSlot, threads, turnCount, maxTokens, summaries, runs }, null, 2));
  await writeFile(join(values.out!, "remote-load.md"), `${lines.join("\n")}\n`);
  process.stdout.write(`${lines.join("\n")}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
