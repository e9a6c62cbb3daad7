// The opt-in request recorder (shell/lm/request-recorder.ts): off without
// STATEFUL_CHAT_RECORD_REQUESTS; on, a request is on disk before it is served, its outcome (the
// pool's reply, or the error it was refused with) follows under the same id, the error still
// reaches the caller, and every line reads back through the log's own parser. A folder that
// cannot be written is reported once and never fails a request.

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ChatTemplate } from "../../src/extension/core/chat-template";
import { CapacityError } from "../../src/extension/core/errors";
import { renderRequest } from "../../src/extension/core/request-pool/request-messages";
import { type RequestMessage } from "../../src/extension/core/request-pool/request-shape";
import { parseRequestLogLine, REQUEST_LOG_FILE, type RequestLogLine } from "../../src/extension/core/request-pool/request-record";
import type { PoolReply } from "../../src/extension/core/request-pool/request-pool";
import { environmentRecorder, RECORD_REQUESTS_ENV, RequestRecorder } from "../../src/extension/shell/lm/request-recorder";
import { ByteTokenizer, CHATML_TEMPLATE } from "../support/fake-engine";
import { deferred } from "../support/deferred";

const tokenizer = new ByteTokenizer();
const messages: RequestMessage[] = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "Which files are here?" },
  { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "list_dir", arguments: { path: "." } }] },
  { role: "tool", content: "hello.ts\nshapes.ts", toolCallId: "c1", toolName: "list_dir" },
];
const tools = [{ name: "list_dir", description: "Lists a folder.", parameters: { type: "object", properties: { path: { type: "string" } } } }];
const rendered = renderRequest(new ChatTemplate(CHATML_TEMPLATE, { eosToken: tokenizer.eosText }), tokenizer, messages, tools);
const REPLY: PoolReply = { sessionId: "s1", cached: 12, prefilled: 30, rewound: 0, restored: "prefix", restoredTokens: 12, generated: 5, stopReason: "eog", position: 47, capacity: 8192 };


describe("the request recorder", () => {
  const root = mkdtempSync(join(tmpdir(), "request-recorder-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  const linesOf = (dir: string): RequestLogLine[] =>
    readFileSync(join(dir, REQUEST_LOG_FILE), "utf8")
      .split("\n")
      .filter(Boolean)
      .map(parseRequestLogLine);

  it("writes the request before it is served, then its reply under the same id", async () => {
    const dir = join(root, "served");
    const recorder = new RequestRecorder(dir, () => assert.fail("no failure expected"), () => new Date("2026-12-02T10:00:00Z"));
    const serving = deferred<PoolReply>();
    const recording = recorder.record({ model: "qwen", tokenizer, messages, tools, rendered });
    const [request] = linesOf(dir);
    assert.ok(request && request.kind === "request", "on disk while the pool has not answered");
    assert.equal(request.model, "qwen");
    assert.deepEqual(request.tokens, rendered.tokens);
    assert.equal(request.text, rendered.text);
    assert.deepEqual(request.tools, ["list_dir"]);
    assert.deepEqual(
      request.messages.map((m) => [m.role, m.chars, m.toolCalls, m.toolCallId]),
      [
        ["system", 23, undefined, undefined],
        ["user", 21, undefined, undefined],
        ["assistant", 0, ["list_dir"], undefined],
        ["tool", 18, undefined, "c1"],
      ],
    );
    assert.equal(request.tokens.map((t) => request.pieces[t]).join(""), rendered.text, "the pieces decode the whole request");
    const replied = recording.outcome(serving.promise, () => 1234);
    serving.resolve(REPLY);
    assert.deepEqual(await replied, REPLY);
    const [, outcome] = linesOf(dir);
    assert.ok(outcome && outcome.kind === "outcome");
    assert.equal(outcome.id, request.id);
    assert.deepEqual(outcome.reply, { sessionId: "s1", cached: 12, prefilled: 30, rewound: 0, generated: 5, stopReason: "eog", position: 47, capacity: 8192, restored: "prefix", restoredTokens: 12, firstTokenMs: 1234 });
    // It reads back as written (the analysis prints it per request).
    assert.equal(parseRequestLogLine(JSON.stringify(outcome)).kind, "outcome");
    assert.deepEqual((parseRequestLogLine(JSON.stringify(outcome)) as typeof outcome).reply?.firstTokenMs, 1234);
    assert.throws(() => parseRequestLogLine(JSON.stringify({ ...outcome, reply: { ...outcome.reply, firstTokenMs: -1 } })), /firstTokenMs/);
  });

  it("a refused request: the error's code is recorded and the same error reaches the caller", async () => {
    const dir = join(root, "refused");
    const recorder = new RequestRecorder(dir, () => assert.fail("no failure expected"));
    const refusal = new CapacityError(0, 16_754, 8192);
    const first = recorder.record({ model: "qwen", tokenizer, messages, tools, rendered });
    await assert.rejects(first.outcome(Promise.reject(refusal)), (error) => error === refusal);
    const second = recorder.record({ model: "qwen", tokenizer, messages: messages.slice(0, 2), tools: [], rendered });
    await second.outcome(Promise.resolve(REPLY));
    const lines = linesOf(dir);
    assert.deepEqual(
      lines.map((l) => l.kind),
      ["request", "outcome", "request", "outcome"],
    );
    assert.equal(lines[0]!.id, lines[1]!.id);
    assert.equal(lines[2]!.id, lines[3]!.id);
    assert.notEqual(lines[0]!.id, lines[2]!.id);
    assert.match(lines[0]!.id, new RegExp(`^${process.pid}\\.[0-9a-z]+-1$`), "the process, its recorder's start, a counter");
    const outcome = lines[1]!;
    assert.ok(outcome.kind === "outcome");
    assert.equal(outcome.error?.code, "capacity_exceeded");
    assert.match(outcome.error?.message ?? "", /16754 tokens/);
  });

  it("a folder that cannot be written is reported once; requests are still served", async () => {
    const blocker = join(root, "a-file");
    writeFileSync(blocker, "not a folder");
    const reports: string[] = [];
    const recorder = new RequestRecorder(join(blocker, "inside"), (message) => reports.push(message));
    for (let i = 0; i < 3; i++) {
      const recording = recorder.record({ model: "qwen", tokenizer, messages, tools, rendered });
      assert.deepEqual(await recording.outcome(Promise.resolve(REPLY)), REPLY);
    }
    assert.equal(reports.length, 1, reports.join("\n"));
    assert.match(reports[0]!, /recording requests to .*requests\.jsonl failed, recording stopped/);
  });

  it("is off without the environment variable, and on for the folder it names", () => {
    assert.equal(environmentRecorder({}), undefined);
    assert.equal(environmentRecorder({ [RECORD_REQUESTS_ENV]: "  " }), undefined, "blank is off");
    const dir = join(root, "from-env");
    const recorder = environmentRecorder({ [RECORD_REQUESTS_ENV]: dir });
    assert.equal(recorder?.file, join(dir, REQUEST_LOG_FILE));
    assert.equal(environmentRecorder({ [RECORD_REQUESTS_ENV]: dir }), recorder, "one recorder per folder: its ids keep counting");
    assert.ok(!existsSync(dir), "nothing is written before a request");
    assert.equal(environmentRecorder({}), undefined);
  });
});
