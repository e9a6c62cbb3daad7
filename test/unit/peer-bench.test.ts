// Peer bench pieces that need no model: the llama-server client against a local HTTP
// server speaking its streaming format (a test double at the network boundary; the real
// server runs in `npm run bench:peers`), the scenarios' context handling, the report.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { PeerChat } from "../../src/extension/peer-bench/peer-chat";
import { summarize } from "../../src/extension/peer-bench/report";
import { runScenario, type BenchChat, type ScenarioSide } from "../../src/extension/peer-bench/scenarios";
import { lineChart } from "../../src/extension/peer-bench/svg-plot";
import type { TurnMeasure } from "../../src/extension/peer-bench/turn-measure";

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
          { choices: [{ delta: {} , finish_reason: "stop" }], timings: { cache_n: 40, prompt_n: 12, predicted_n: 3 } },
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

  it("ours sends the file once and then only diffs; the peer attaches the whole file every turn", async () => {
    const ours: Array<string | undefined> = [];
    const peer: Array<string | undefined> = [];
    await runScenario("c", recordingSide("incremental", ours), { turns: 6 });
    await runScenario("c", recordingSide("whole", peer), { turns: 6 });
    assert.equal(ours.length, 6);
    assert.match(ours[0] ?? "", /inventory\.py:\n```python\n"""Inventory helpers/);
    for (const later of ours.slice(1)) assert.match(later ?? "", /inventory\.py changed:\n```diff\n@@/);
    for (const whole of peer) assert.match(whole ?? "", /inventory\.py:\n```python\n"""Inventory helpers[\s\S]*def apply_discount/);
    const total = (xs: Array<string | undefined>) => xs.reduce((a, x) => a + (x?.length ?? 0), 0);
    assert.ok(total(ours) < 0.5 * total(peer), `ours ${total(ours)} chars vs peer ${total(peer)}`);
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
      side: "peer",
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
