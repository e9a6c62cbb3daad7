// Bench scenario f (issue 25): VS Code's recorded Agent-mode requests replayed on our Chat
// provider's path and on llama-server, first token per request. The recording is
// agent-requests.ts's (requests.jsonl: each request's rendered token ids), so both sides get
// the same tokens and neither renders a template: ours through an engine process and a
// RequestPool with the on-disk prefix store (as lm-pools.ts wires it), the peer through
// `/completion` with the token ids, `cache_prompt` and `--cache-ram`. Each side generates its own
// reply (greedy, --max-tokens); the next request is the recorded one either way.
//
// Two phases per side, the side restarted between them (a new engine process and pool on the
// same prefix folder; a new llama-server): run 1 replays every conversation but the last, run 2
// the last. The prefix folder starts empty, so run 1's first request is a cold prefill on both
// sides. Not part of npm test (a real 1.5B, minutes per cold prefill).
//
//   node --import tsx test/bench/agent-replay.ts --requests DIR --model GGUF [--context N]
//        [--threads N] [--max-tokens N] [--sides ours,peer] [--out FILE] [--json]

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { FilePrefixStore } from "../../src/extension/core/request-pool/file-prefix-store";
import { RequestPool } from "../../src/extension/core/request-pool/request-pool";
import { prefixStoreKey } from "../../src/extension/snapshots/prefix-key";
import { ensureLlamaServer } from "../../src/tools/peer-bench/llama-server-binary";
import { LlamaServerProcess } from "../../src/tools/peer-bench/llama-server-process";
import { analyzeRequests, type RequestKind } from "../../src/tools/request-analysis/request-analysis";
import { readRequestLog } from "../../src/tools/request-analysis/request-log";
import { repoRoot } from "../support/default-model";
import { startProxyEngine } from "../support/engine-process";

const USAGE = `Usage: node --import tsx test/bench/agent-replay.ts --requests DIR --model GGUF [--context N]
         [--threads N] [--max-tokens N] [--sides ours,peer] [--out FILE] [--json]`;

const SIDES = ["ours", "peer"] as const;
type Side = (typeof SIDES)[number];

interface Replayed {
  readonly index: number;
  readonly conversation: number;
  readonly kind: RequestKind;
  readonly tokens: number;
}

interface Measured {
  readonly side: Side;
  readonly run: 1 | 2;
  readonly request: number;
  readonly firstTokenMs: number;
  readonly cached: number;
  readonly prefilled: number;
  readonly restored?: string;
  readonly generated: number;
}

function parse() {
  const { values } = parseArgs({
    strict: true,
    options: {
      requests: { type: "string" },
      model: { type: "string" },
      context: { type: "string", default: "32768" },
      threads: { type: "string", default: "2" },
      "max-tokens": { type: "string", default: "16" },
      sides: { type: "string", default: "ours,peer" },
      out: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const int = (name: string, raw: string, min: number) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number ≥ ${min}, got "${raw}"\n${USAGE}`);
    return n;
  };
  if (!values.requests || !values.model) throw new Error(`--requests and --model are required\n${USAGE}`);
  const sides = values.sides.split(",").map((s) => s.trim());
  for (const side of sides) if (!(SIDES as readonly string[]).includes(side)) throw new Error(`--sides: "${side}" is neither ours nor peer\n${USAGE}`);
  return {
    requests: resolve(values.requests),
    model: resolve(values.model),
    context: int("context", values.context, 256),
    threads: int("threads", values.threads, 1),
    maxTokens: int("max-tokens", values["max-tokens"], 1),
    sides: sides as Side[],
    out: values.out,
    json: values.json,
  };
}

type Args = ReturnType<typeof parse>;

/** Our side: an engine process and a pool with the prefix store, as the Chat provider has them. */
async function replayOurs(args: Args, runs: ReadonlyArray<readonly (Replayed & { ids: readonly number[] })[]>): Promise<Measured[]> {
  const folder = mkdtempSync(join(tmpdir(), "agent-replay-prefixes-"));
  const out: Measured[] = [];
  try {
    for (const [r, requests] of runs.entries()) {
      const engine = await startProxyEngine({ modelPath: args.model, backend: "llamacpp", contextSize: args.context, threads: args.threads });
      // The layout lm-pools.ts gives a model's folder: parked sessions in it, prefixes under it.
      const store = new FilePrefixStore({ dir: join(folder, "prefixes"), key: (await prefixStoreKey(engine.info))! });
      const pool = new RequestPool(engine, { size: 2, snapshotDir: folder, prefixStore: store });
      try {
        for (const request of requests) {
          const started = performance.now();
          let first: number | undefined;
          const reply = await pool.serve({ tokens: [...request.ids], maxTokens: args.maxTokens, sampling: { temperature: 0 } }, () => {
            first ??= performance.now() - started;
          });
          await pool.whenIdle(); // The prefix store writes behind the reply: as between two real requests.
          out.push({
            side: "ours",
            run: (r + 1) as 1 | 2,
            request: request.index,
            firstTokenMs: Math.round(first ?? performance.now() - started),
            cached: reply.cached,
            prefilled: reply.prefilled,
            restored: reply.restored ? `${reply.restored}${reply.restoredTokens !== undefined ? ` ${reply.restoredTokens}` : ""}` : undefined,
            generated: reply.generated,
          });
          console.error(`[agent-replay] ours run ${r + 1} #${request.index}: ${JSON.stringify(out.at(-1))}`);
        }
      } finally {
        await pool.dispose();
        store.dispose();
        await engine.dispose();
      }
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  return out;
}

/** The peer: llama-server with one slot of the same size, --cache-ram, token ids to /completion. */
async function replayPeer(args: Args, runs: ReadonlyArray<readonly (Replayed & { ids: readonly number[] })[]>): Promise<Measured[]> {
  const binary = await ensureLlamaServer(join(repoRoot, ".cache", "peer"), { log: (line) => console.error(line) });
  const out: Measured[] = [];
  for (const [r, requests] of runs.entries()) {
    const server = await LlamaServerProcess.start({ binary: binary.path, modelPath: args.model, contextSize: args.context, threads: args.threads, slots: 1, extraArgs: ["--cache-ram", "8192"] });
    try {
      for (const request of requests) {
        const started = performance.now();
        let first: number | undefined;
        const response = await fetch(`${server.baseUrl}/completion`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ prompt: request.ids, n_predict: args.maxTokens, temperature: 0, cache_prompt: true, stream: true }),
        });
        if (!response.ok || !response.body) throw new Error(`llama-server: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`);
        let buffer = "";
        let timings: { cache_n?: number; prompt_n?: number; predicted_n?: number } = {};
        const decoder = new TextDecoder();
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let newline: number;
          while ((newline = buffer.indexOf("\n")) >= 0) {
            const line = buffer.slice(0, newline).trim();
            buffer = buffer.slice(newline + 1);
            if (!line.startsWith("data:")) continue;
            const event = JSON.parse(line.slice(5)) as { content?: string; tokens?: number[]; stop?: boolean; timings?: typeof timings };
            if (!event.stop && (event.content || (event.tokens?.length ?? 0) > 0)) first ??= performance.now() - started;
            if (event.timings) timings = event.timings;
          }
        }
        out.push({
          side: "peer",
          run: (r + 1) as 1 | 2,
          request: request.index,
          firstTokenMs: Math.round(first ?? performance.now() - started),
          cached: timings.cache_n ?? 0,
          prefilled: timings.prompt_n ?? 0,
          generated: timings.predicted_n ?? 0,
        });
        console.error(`[agent-replay] peer run ${r + 1} #${request.index}: ${JSON.stringify(out.at(-1))}`);
      }
    } finally {
      await server.stop();
    }
  }
  return out;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function main(): Promise<void> {
  const args = parse();
  const log = readRequestLog(args.requests);
  const analysis = analyzeRequests(log);
  const requests = analysis.requests
    .map((a, i) => ({ index: a.index, conversation: a.conversation, kind: a.kind, tokens: a.tokens, ids: log.requests[i]!.tokens }))
    .filter((r) => r.tokens < args.context - args.maxTokens);
  if (requests.length === 0) throw new Error(`${args.requests}: no recorded request fits a context of ${args.context}`);
  const last = Math.max(...requests.map((r) => r.conversation));
  const runs = [requests.filter((r) => r.conversation < last), requests.filter((r) => r.conversation === last)].filter((run) => run.length > 0);
  console.error(`[agent-replay] ${requests.length} requests in ${last} conversations; run 1: ${runs[0]!.length} requests, then a restart, run 2: ${runs[1]?.length ?? 0}`);

  const measured: Measured[] = [];
  // Alternated: ours first, then the peer, each side alone on the machine.
  for (const side of args.sides) measured.push(...(side === "ours" ? await replayOurs(args, runs) : await replayPeer(args, runs)));

  const rows = requests.map((r) => {
    const run = runs[0]!.includes(r) ? 1 : 2;
    const ours = measured.find((m) => m.side === "ours" && m.request === r.index);
    const peer = measured.find((m) => m.side === "peer" && m.request === r.index);
    return { ...r, ids: undefined, run, ours, peer, ratio: ours && peer ? Math.round((ours.firstTokenMs / peer.firstTokenMs) * 1000) / 1000 : undefined };
  });
  const afterRestart = rows.find((r) => r.run === 2);
  const warm = rows.filter((r) => r.run === 1 && r !== rows[0] && r.ratio !== undefined);
  const summary = {
    afterRestartRatio: afterRestart?.ratio,
    withinRunMedianRatio: warm.length > 0 ? median(warm.map((r) => r.ratio!)) : undefined,
    withinRunSumRatio: warm.length > 0 ? Math.round((warm.reduce((s, r) => s + r.ours!.firstTokenMs, 0) / warm.reduce((s, r) => s + r.peer!.firstTokenMs, 0)) * 1000) / 1000 : undefined,
  };
  const result = { args: { ...args }, machine: { at: new Date().toISOString() }, rows, summary };
  if (args.out) writeFileSync(args.out, `${JSON.stringify(result, null, 2)}\n`);
  if (args.json) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  const fmt = (m: Measured | undefined) => (m ? `${m.firstTokenMs} ms (${m.cached} cached, ${m.prefilled} prefilled${m.restored ? `, restored ${m.restored}` : ""})` : "–");
  console.log("| run | # | conversation | kind | tokens | ours first token | peer first token | ours ÷ peer |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows) console.log(`| ${r.run} | ${r.index} | ${r.conversation} | ${r.kind} | ${r.tokens} | ${fmt(r.ours)} | ${fmt(r.peer)} | ${r.ratio ?? "–"} |`);
  console.log(`\nAfter the restart: ours ÷ peer ${summary.afterRestartRatio ?? "–"}. Within run 1 (after its cold first request): median ${summary.withinRunMedianRatio ?? "–"}, total ${summary.withinRunSumRatio ?? "–"}.`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
