// Where recorded requests differ (tools/request-analysis/, `stateful-chat analyze-requests`), on
// synthetic token streams: the common prefix and the identical runs after the first difference
// (token-alignment.ts), each request's kind and conversation, the two kinds of comparison with
// their decoded windows, the "volatile content before stable content" finding with its numbers,
// and a log that is missing, empty or damaged refused with the line and the reason. On the
// recorded Agent-mode requests: the known blocks (stable-prefix.ts) each first difference lies in.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { RequestMessage } from "../../src/extension/core/request-pool/request-shape";
import { outcomeRecordOf, REQUEST_LOG_FILE, requestRecordOf, tokenPiece, type RequestLogLine } from "../../src/extension/core/request-pool/request-record";
import { CapacityError } from "../../src/extension/core/errors";
import { runAnalyzeRequests } from "../../src/tools/cli/analyze-requests-command";
import { analysisReport } from "../../src/tools/request-analysis/analysis-report";
import { analyzeRequests, requestKindOf, type RequestAnalysis } from "../../src/tools/request-analysis/request-analysis";
import { parseRequestLog, readRequestLog, RequestLogError } from "../../src/tools/request-analysis/request-log";
import { alignTokens } from "../../src/tools/request-analysis/token-alignment";
import { ByteTokenizer } from "../support/fake-engine";
import { RECORDING_DIR, RECORDING_FILES } from "../support/recorded-agent-requests";

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe("two token streams lined up", () => {
  it("identical streams, and a stream that only appends", () => {
    const a = range(0, 100);
    assert.deepEqual(alignTokens(a, a), { commonPrefix: 100, extendsEarlier: true, identical: true, stableRuns: [], volatile: [], identicalAfterFirstDifference: 0, aligned: true });
    const appended = alignTokens(a, [...a, ...range(500, 40)]);
    assert.equal(appended.commonPrefix, 100);
    assert.ok(appended.extendsEarlier && !appended.identical);
    assert.deepEqual(appended.volatile, [{ atEarlier: 100, lengthEarlier: 0, atLater: 100, lengthLater: 40 }]);
    assert.equal(appended.identicalAfterFirstDifference, 0);
  });

  it("a volatile block of another length before a long stable run: the run's position on each side", () => {
    const head = range(0, 50);
    const stable = range(1000, 600);
    const a = [...head, 900, 901, 902, ...stable, 7001];
    const b = [...head, 910, 911, 912, 913, 914, ...stable, 7002, 7003];
    const out = alignTokens(a, b);
    assert.equal(out.commonPrefix, 50);
    assert.deepEqual(out.stableRuns, [{ atEarlier: 53, atLater: 55, length: 600 }]);
    assert.deepEqual(out.volatile, [
      { atEarlier: 50, lengthEarlier: 3, atLater: 50, lengthLater: 5 },
      { atEarlier: 653, lengthEarlier: 1, atLater: 655, lengthLater: 2 },
    ]);
    assert.equal(out.identicalAfterFirstDifference, 600);
    assert.ok(out.aligned && !out.extendsEarlier);
  });

  it("an identical stretch shorter than the minimum run stays inside the volatile segment", () => {
    const stable = range(1000, 100);
    const a = [1, 2, 3, 50, 60, 61, 62, 51, ...stable];
    const b = [1, 2, 3, 70, 60, 61, 62, 71, ...stable];
    const out = alignTokens(a, b, { minStableRun: 8 });
    assert.deepEqual(out.volatile, [{ atEarlier: 3, lengthEarlier: 5, atLater: 3, lengthLater: 5 }], "60 61 62 match but are too short to be stable");
    assert.deepEqual(out.stableRuns, [{ atEarlier: 8, atLater: 8, length: 100 }]);
    const fine = alignTokens(a, b, { minStableRun: 3 });
    assert.equal(fine.stableRuns.length, 2, "with a minimum of 3 they are a run of their own");
  });

  it("gives up past the edit cap, keeping the common prefix and suffix", () => {
    const suffix = range(5000, 50);
    const a = [9, ...range(100, 300), ...suffix];
    const b = [9, ...range(2000, 300), ...suffix];
    const out = alignTokens(a, b, { maxEdits: 10 });
    assert.equal(out.aligned, false);
    assert.equal(out.commonPrefix, 1);
    assert.deepEqual(out.stableRuns, [{ atEarlier: 301, atLater: 301, length: 50 }]);
    assert.deepEqual(out.volatile, [{ atEarlier: 1, lengthEarlier: 300, atLater: 1, lengthLater: 300 }]);
  });
});

describe("a request's kind", () => {
  it("one user message is a new conversation; tool results come after a tool call; anything else follows up", () => {
    assert.equal(requestKindOf([{ role: "system" }, { role: "user" }]), "new");
    assert.equal(requestKindOf([{ role: "system" }, { role: "user" }, { role: "assistant" }, { role: "user" }]), "follow-up");
    assert.equal(requestKindOf([{ role: "user" }, { role: "assistant" }, { role: "tool" }]), "after-tool");
    assert.equal(requestKindOf([{ role: "user" }, { role: "assistant" }]), "follow-up", "a user message answered is not new");
    assert.equal(requestKindOf([{ role: "system" }, { role: "user" }, { role: "user" }]), "new", "VS Code's Agent mode opens with its environment and the request");
  });
});

// Agent-mode-shaped requests on the byte tokenizer (one token per byte of this ASCII text, so a
// token position is a character position): instructions, a date, long tool schemas, the question.
const TOOLS = Array.from({ length: 40 }, (_, i) => `{"name":"tool_${i}","description":"Does thing ${i} in the workspace."}`).join("\n");
const system = (date: string) => `You are a coding agent. Today is ${date}.\n${TOOLS}`;
const chatml = (messages: readonly RequestMessage[], generation = true) =>
  messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join("") + (generation ? "<|im_start|>assistant\n" : "");
const tokenizer = new ByteTokenizer();

function line(id: string, messages: RequestMessage[], tools = ["read_file", "list_dir"]): RequestLogLine {
  const text = chatml(messages);
  return requestRecordOf({
    id,
    at: new Date("2026-12-02T10:00:00Z"),
    model: "fake",
    messages,
    tools: tools.map((name) => ({ name, description: name, parameters: {} })),
    rendered: { text, tokens: tokenizer.encode(text, { specials: true }) },
    piece: tokenPiece(tokenizer),
  });
}

const QUESTION = "What is a KV cache?";
const first: RequestMessage[] = [
  { role: "system", content: system("2026-12-01") },
  { role: "user", content: QUESTION },
];
const followUp: RequestMessage[] = [...first, { role: "assistant", content: "A cache of keys and values." }, { role: "user", content: "Say it shorter." }];
const second: RequestMessage[] = [
  { role: "system", content: system("2026-12-02") },
  { role: "user", content: QUESTION },
];
const afterTool: RequestMessage[] = [...second, { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "read_file", arguments: {} }] }, { role: "tool", content: "file text", toolCallId: "c1" }];

function agentLog(): string {
  const lines: RequestLogLine[] = [
    line("p-1", first),
    outcomeRecordOf("p-1", new Date(), { error: new CapacityError(0, 1200, 1024) }),
    line("p-2", followUp),
    line("p-3", second),
    outcomeRecordOf("p-3", new Date(), { reply: { sessionId: "s2", cached: 0, prefilled: 10, rewound: 0, generated: 3, stopReason: "eog", position: 13, capacity: 4096 } }),
    line("p-4", afterTool),
  ];
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

describe("where recorded requests differ", () => {
  const analysis: RequestAnalysis = analyzeRequests(parseRequestLog("requests.jsonl", agentLog()));
  const dateAt = chatml(first).indexOf("2026-12-01") + "2026-12-0".length;

  it("each request's kind, conversation and outcome", () => {
    assert.deepEqual(
      analysis.requests.map((r) => [r.index, r.kind, r.conversation, r.outcome?.error?.code ?? r.outcome?.reply?.sessionId ?? "none"]),
      [
        [1, "new", 1, "capacity_exceeded"],
        [2, "follow-up", 1, "none"],
        [3, "new", 2, "s2"],
        [4, "after-tool", 2, "none"],
      ],
    );
    assert.deepEqual(analysis.requests[1]!.roles, ["system", "user", "assistant", "user"]);
    assert.equal(analysis.requests[0]!.tokens, chatml(first).length);
  });

  it("consecutive: a follow-up extends its conversation; a new conversation differs at the date", () => {
    const [oneTwo, twoThree, threeFour] = analysis.consecutive;
    assert.equal(oneTwo!.commonPrefix, chatml(first).length);
    assert.ok(oneTwo!.extendsEarlier);
    assert.equal(oneTwo!.sharedFraction, Math.round((chatml(first).length / chatml(followUp).length) * 1000) / 1000);
    assert.equal(oneTwo!.leadingIdenticalMessages, 2);
    assert.equal(twoThree!.commonPrefix, dateAt);
    assert.equal(twoThree!.leadingIdenticalMessages, 0);
    assert.deepEqual(twoThree!.window, { before: chatml(second).slice(dateAt - 12, dateAt), earlier: chatml(followUp).slice(dateAt, dateAt + 12), later: chatml(second).slice(dateAt, dateAt + 12) });
    assert.ok(threeFour!.extendsEarlier, "the tool call and its result are appended");
  });

  it("against the previous conversation's first request: one token differs, everything after it is identical", () => {
    const againstFirst = analysis.againstPreviousConversation.map((c) => [c.earlier, c.later]);
    assert.deepEqual(againstFirst, [
      [1, 3],
      [1, 4],
    ]);
    const c = analysis.againstPreviousConversation[0]!;
    const total = chatml(second).length;
    assert.equal(c.commonPrefix, dateAt);
    assert.deepEqual(c.stableRuns, [{ atEarlier: dateAt + 1, atLater: dateAt + 1, length: total - dateAt - 1 }]);
    assert.equal(c.identicalAfterFirstDifference, total - dateAt - 1);
    assert.deepEqual(
      c.volatile.map((s) => [s.atLater, s.lengthEarlier, s.lengthLater, s.earlierText, s.laterText]),
      [[dateAt, 1, 1, "1", "2"]],
    );
    assert.ok(c.sameTools);
  });

  it("reports volatile content before stable content with the numbers", () => {
    const finding = analysis.volatileBeforeStable.find((f) => f.comparison === "previous-conversation" && f.later === 3);
    assert.ok(finding, JSON.stringify(analysis.volatileBeforeStable));
    const total = chatml(second).length;
    assert.deepEqual(finding, {
      comparison: "previous-conversation",
      earlier: 1,
      later: 3,
      firstDifference: dateAt,
      tokensLater: total,
      identicalAfter: total - dateAt - 1,
      longestRun: { atEarlier: dateAt + 1, atLater: dateAt + 1, length: total - dateAt - 1 },
      volatileTokens: 1,
    });
    assert.ok(!analysis.volatileBeforeStable.some((f) => f.later === 2), "an append is not a finding");
    const text = analysisReport(analysis);
    const findings = text.slice(text.indexOf("Volatile content before stable content:"));
    const n = (x: number) => x.toLocaleString("en-US");
    const pc = (x: number) => `${((x / total) * 100).toFixed(1)}%`;
    const after = total - dateAt - 1;
    assert.ok(
      findings.includes(
        `\n  #3 vs #1 (previous-conversation): first difference at ${n(dateAt)} of ${n(total)} tokens (${pc(dateAt)}); ` +
          `after it ${n(after)} tokens (${pc(after)}) are identical, the longest run ${n(after)} from ${n(dateAt + 1)}; what differs: 1 token`,
      ),
      findings,
    );
    assert.match(text, /refused: capacity_exceeded/);
    assert.ok(text.includes(`differs: #1 at ${dateAt} (1 token) "1" → #3 at ${dateAt} (1 token) "2"`), text);
  });

  it("a first difference in no known block: nothing to take out, the content shown as it is", () => {
    const c = analysis.againstPreviousConversation[0]!;
    assert.deepEqual(c.knownBlocks?.blocks, []);
    assert.equal(c.knownBlocks?.then, "differs");
    assert.equal(c.knownBlocks?.unknown?.later.slice(0, 1), "2");
    assert.ok(!analysisReport(analysis).includes("known block"), "the window already shows it");
  });

  it("a request laid out stable prefix first is recorded so, and the table says it", () => {
    const text = chatml(second);
    const record = requestRecordOf({
      id: "q-1",
      at: new Date("2026-12-02T10:00:00Z"),
      model: "fake",
      messages: second,
      tools: [],
      rendered: { text, tokens: tokenizer.encode(text, { specials: true }), layout: "system-turn", moved: ["template-variables"] },
      piece: tokenPiece(tokenizer),
    });
    assert.deepEqual(record.layout, { placement: "system-turn", moved: ["template-variables"] });
    const plain = line("q-2", second);
    assert.ok(plain.kind === "request" && plain.layout === undefined, "as sent: no layout on record");
    const laidOut = analyzeRequests(parseRequestLog("requests.jsonl", `${JSON.stringify(record)}\n${JSON.stringify(line("q-2", second))}\n`));
    assert.deepEqual(laidOut.requests[0]!.layout, record.layout);
    const report = analysisReport(laidOut);
    assert.match(report, /template-variables → system-turn/);
    assert.match(report, /as sent/);
  });

  it("a stable run too short for the threshold is not a finding", () => {
    const strict = analyzeRequests(parseRequestLog("requests.jsonl", agentLog()), { minStableAfter: 1_000_000 });
    assert.deepEqual(strict.volatileBeforeStable, []);
    assert.match(analysisReport(strict), /none: no first difference is followed by a long identical run/);
  });
});

describe("a request log that cannot be analysed", () => {
  const dir = mkdtempSync(join(tmpdir(), "request-log-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const good = JSON.stringify(line("p-1", first));

  const refusal = (content: string) => {
    try {
      parseRequestLog("log.jsonl", content);
    } catch (error) {
      assert.ok(error instanceof RequestLogError, String(error));
      return error.message;
    }
    assert.fail("accepted");
  };

  it("names the line and what is wrong", () => {
    assert.match(refusal(`${good}\n{"kind":"request"`), /^log\.jsonl line 2: not JSON/);
    assert.match(refusal(""), /records no requests/);
    assert.match(refusal(JSON.stringify(outcomeRecordOf("x-1", new Date(), { error: new Error("boom") }))), /line 1: an outcome for request x-1, which no earlier line records/);
    assert.match(refusal(`${good}\n${good}`), /line 2: a second request with id p-1/);
    const outcome = JSON.stringify(outcomeRecordOf("p-1", new Date(), { error: new Error("boom") }));
    assert.match(refusal(`${good}\n${outcome}\n${outcome}`), /line 3: a second outcome for request p-1/);
    assert.match(refusal(JSON.stringify({ ...JSON.parse(good), format: 2 })), /line 1: format 2, this reader knows 1/);
    assert.match(refusal(JSON.stringify({ ...JSON.parse(good), tokens: [1, -2] })), /tokens\[1\] must be a token id/);
    assert.match(refusal(JSON.stringify({ ...JSON.parse(good), pieces: {} })), /pieces has no text for token/);
    assert.match(refusal(JSON.stringify({ ...JSON.parse(good), messages: [{ role: "robot", chars: 1, sha: "x" }] })), /messages\[0\]\.role "robot"/);
    assert.match(refusal(JSON.stringify({ kind: "outcome", format: 1, id: "p-1", at: "t" })), /exactly one of reply and error/);
    assert.match(refusal(JSON.stringify({ ...JSON.parse(good), layout: { placement: "sideways", moved: [] } })), /layout\.placement "sideways": expected one of system-turn, user-message/);
  });

  it("a missing folder says how to record one; a folder is read through its requests.jsonl", () => {
    assert.throws(() => readRequestLog(join(dir, "nowhere")), /No request log at .*nowhere: record one by starting VS Code with STATEFUL_CHAT_RECORD_REQUESTS=<folder>/);
    assert.throws(() => readRequestLog(dir), (error: unknown) => error instanceof RequestLogError && error.message.includes(`Cannot read ${join(dir, REQUEST_LOG_FILE)}`));
    writeFileSync(join(dir, REQUEST_LOG_FILE), agentLog());
    assert.equal(readRequestLog(dir).requests.length, 4);
    assert.equal(readRequestLog(join(dir, REQUEST_LOG_FILE)).requests[0]!.outcome?.error?.code, "capacity_exceeded");
  });

  it("the CLI command: usage, a clear error, the table and JSON", () => {
    const run = (args: string[]) => {
      let out = "";
      let err = "";
      const code = runAnalyzeRequests(args, (t) => (out += t), (t) => (err += t));
      return { code, out, err };
    };
    const none = run([]);
    assert.equal(none.code, 2);
    assert.match(none.err, /needs the recording folder\nUsage: stateful-chat analyze-requests/);
    assert.equal(run(["--help"]).code, 0);
    assert.equal(run([dir, "--window", "0"]).code, 2);
    assert.equal(run([dir, "--bogus"]).code, 2);
    const missing = run([join(dir, "nowhere")]);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /No request log at/);
    writeFileSync(join(dir, REQUEST_LOG_FILE), agentLog());
    const table = run([dir]);
    assert.equal(table.code, 0, table.err);
    assert.match(table.out, /^4 requests in .*requests\.jsonl \(2 conversations\)/);
    const json = run([dir, "--json", "--window", "4"]);
    const parsed = JSON.parse(json.out) as RequestAnalysis;
    assert.equal(parsed.consecutive[1]!.window!.later.length, 4);
    assert.equal(parsed.requests.length, 4);
  });
});

describe("the recorded Agent-mode requests: which known blocks the first difference lies in", () => {
  // Both windows of the recording (test/bench/results/agent-requests-qwen1.5b/) as one log: a
  // short request, a new Agent-mode conversation and its follow-up, a new conversation after a reload.
  const content = RECORDING_FILES.map((file) => readFileSync(join(RECORDING_DIR, file), "utf8")).join("");
  const analysis = analyzeRequests(parseRequestLog("recording", content));
  const consecutive = (later: number) => analysis.consecutive.find((c) => c.later === later)!;

  it("finds three conversations: VS Code's Agent mode opens with two user messages", () => {
    assert.deepEqual(
      analysis.requests.map((r) => [r.kind, r.conversation]),
      [
        ["new", 1],
        ["new", 2],
        ["follow-up", 2],
        ["new", 3],
      ],
    );
  });

  it("new conversation against the previous one: the template-variables block, and without it the rest is identical", () => {
    const c = analysis.againstPreviousConversation.find((x) => x.earlier === 2 && x.later === 4)!;
    assert.equal(c.commonPrefix, 2_207, "as recorded: up to the session's log folder");
    assert.deepEqual(c.knownBlocks?.blocks, ["template-variables"]);
    assert.equal(c.knownBlocks?.then, "identical");
    assert.ok(c.knownBlocks!.commonPrefix > 15_000);
  });

  it("a follow-up: the skills/agents block, and without it the follow-up appends to its conversation", () => {
    const c = consecutive(3);
    assert.equal(c.commonPrefix, 2_134);
    assert.deepEqual(c.knownBlocks?.blocks, ["skills-agents"]);
    assert.equal(c.knownBlocks?.then, "appends");
    assert.equal(c.knownBlocks?.commonPrefix, 15_628, "all of the request before it");
  });

  it("the report names them", () => {
    const text = analysisReport(analysis);
    assert.ok(text.includes("first difference in the known block template-variables (moved after the stable prefix by stablePrefixFirst); without it the common prefix is"), text);
    assert.match(text, /known block skills-agents .* then the later request appends/);
    assert.match(text, /known blocks template-variables, skills-agents .* then the later request ends/);
  });
});
