// Issue 36, item 6: does moving VS Code's per-conversation blocks after the stable prefix change
// what the model does? The recorded Agent-mode requests (test/support/recorded-agent-requests.ts)
// rendered in both orders with the model's template (VS Code's order, and stable prefix first as
// our Chat provider renders them by default), each replayed greedily on the real model through
// the provider's path (an engine process, a RequestPool with the prefix store), in recording
// order. Side by side per request: the tool the reply calls (or its plain answer), and what each
// order cost (cached / prefilled tokens, first token). Differences are reported, not hidden. Not
// part of npm test (a real 1.5B, minutes per cold prefill of ~15,600 tokens).
//
//   node --import tsx test/bench/agent-orders.ts --model GGUF [--context N] [--threads N]
//        [--max-tokens N] [--out FILE]

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ChatTemplate } from "../../src/extension/core/chat-template";
import { FilePrefixStore } from "../../src/extension/core/request-pool/file-prefix-store";
import { renderRequest } from "../../src/extension/core/request-pool/request-messages";
import { RequestPool } from "../../src/extension/core/request-pool/request-pool";
import { prefixStoreKey } from "../../src/extension/snapshots/prefix-key";
import { startProxyEngine } from "../support/engine-process";
import { QWEN25_TEMPLATE } from "../support/qwen25-template";
import { recordedAgentRequests } from "../support/recorded-agent-requests";

const USAGE = "Usage: node --import tsx test/bench/agent-orders.ts --model GGUF [--context N] [--threads N] [--max-tokens N] [--out FILE]";
const ORDERS = [
  { name: "vscode", label: "VS Code's order", stablePrefixFirst: false },
  { name: "stable", label: "stable prefix first", stablePrefixFirst: true },
] as const;
type OrderName = (typeof ORDERS)[number]["name"];

interface Replay {
  readonly order: OrderName;
  readonly request: string;
  readonly tokens: number;
  readonly moved: readonly string[];
  readonly cached: number;
  readonly prefilled: number;
  readonly firstTokenMs: number;
  readonly reply: string;
  readonly action: string;
}

/** What a reply does: the tool it calls (Qwen2.5's `<tool_call>` JSON), or its plain answer's start. */
function actionOf(reply: string): string {
  const call = /<tool_call>\s*\{\s*"name"\s*:\s*"([^"]+)"/.exec(reply);
  if (call) return `calls ${call[1]}`;
  const plain = reply.replace(/\s+/g, " ").trim();
  return `answers "${plain.slice(0, 60)}${plain.length > 60 ? "…" : ""}"`;
}

function parse() {
  const { values } = parseArgs({
    strict: true,
    options: {
      model: { type: "string" },
      context: { type: "string", default: "32768" },
      threads: { type: "string", default: "2" },
      "max-tokens": { type: "string", default: "64" },
      out: { type: "string" },
    },
  });
  const int = (name: string, raw: string) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number ≥ 1, got "${raw}"\n${USAGE}`);
    return n;
  };
  if (!values.model) throw new Error(`--model is required\n${USAGE}`);
  return { model: resolve(values.model), context: int("context", values.context), threads: int("threads", values.threads), maxTokens: int("max-tokens", values["max-tokens"]), out: values.out };
}

async function main(): Promise<void> {
  const args = parse();
  const recorded = recordedAgentRequests();
  const chat = new ChatTemplate(QWEN25_TEMPLATE);
  const replays: Replay[] = [];
  for (const order of ORDERS) {
    // A fresh engine, pool and empty prefix folder per order: neither order starts warm from the other.
    const folder = mkdtempSync(join(tmpdir(), `agent-orders-${order.name}-`));
    const engine = await startProxyEngine({ modelPath: args.model, backend: "llamacpp", contextSize: args.context, threads: args.threads });
    const store = new FilePrefixStore({ dir: join(folder, "prefixes"), key: (await prefixStoreKey(engine.info))! });
    const pool = new RequestPool(engine, { size: 2, snapshotDir: folder, prefixStore: store });
    try {
      for (const r of recorded) {
        const rendered = renderRequest({ chat, stablePrefixFirst: order.stablePrefixFirst }, engine.tokenizer, r.messages, r.tools);
        const ids: number[] = [];
        const started = performance.now();
        let first: number | undefined;
        const reply = await pool.serve(
          { tokens: rendered.tokens, maxTokens: args.maxTokens, sampling: { temperature: 0 }, ...(rendered.stablePrefix === undefined ? {} : { stablePrefix: rendered.stablePrefix }) },
          (token) => {
            first ??= performance.now() - started;
            ids.push(token);
          },
        );
        await pool.whenIdle();
        const text = engine.tokenizer.decode(ids);
        replays.push({
          order: order.name,
          request: r.record.id,
          tokens: rendered.tokens.length,
          moved: rendered.moved ?? [],
          cached: reply.cached,
          prefilled: reply.prefilled,
          firstTokenMs: Math.round(first ?? performance.now() - started),
          reply: text,
          action: actionOf(text),
        });
        console.error(`[agent-orders] ${order.name} ${r.record.id}: ${JSON.stringify({ ...replays.at(-1)!, reply: undefined })}`);
      }
    } finally {
      await pool.dispose();
      store.dispose();
      await engine.dispose();
      rmSync(folder, { recursive: true, force: true });
    }
  }
  const lines = [
    `# Agent-mode requests in both orders (${args.model.split("/").pop()}, greedy, ${args.maxTokens} tokens, ${args.threads} threads, context ${args.context})`,
    "",
    "| request | tokens | moved | VS Code's order | stable prefix first | same | cached / prefilled, first token (VS Code's) | (stable first) |",
    "|---|---|---|---|---|---|---|---|",
  ];
  let differ = 0;
  for (const r of recorded) {
    const [a, b] = ORDERS.map((o) => replays.find((x) => x.order === o.name && x.request === r.record.id)!);
    const same = a!.reply === b!.reply ? "identical" : a!.action === b!.action ? "same action" : "differs";
    if (same === "differs") differ++;
    const cost = (x: Replay) => `${x.cached} / ${x.prefilled}, ${(x.firstTokenMs / 1000).toFixed(1)} s`;
    lines.push(`| ${r.record.id} | ${b!.tokens} | ${b!.moved.join(", ") || "none"} | ${a!.action} | ${b!.action} | ${same} | ${cost(a!)} | ${cost(b!)} |`);
  }
  lines.push("", `${differ} of ${recorded.length} requests differ in what the reply does.`, "", "Replies in full:", "");
  for (const x of replays) lines.push(`- ${x.order} ${x.request}: ${JSON.stringify(x.reply)}`);
  const report = `${lines.join("\n")}\n`;
  process.stdout.write(report);
  if (args.out) writeFileSync(args.out, report);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
