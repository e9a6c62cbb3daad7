// Issue 36's acceptance as the Agent-mode bench reads it off a recording
// (tools/request-analysis/agent-acceptance.ts): each step's first request that offers tools, and
// the checks that fail on a recording in VS Code's order — a new conversation served from the
// store by less than 15,000 tokens or too late, a follow-up that prefilled what its chat held,
// an unanswered first request.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  acceptanceReport,
  agentAcceptance,
  NEW_CONVERSATION_CACHED_MIN,
  NEW_CONVERSATION_FIRST_TOKEN_MAX_MS,
  type AgentStep,
} from "../../src/tools/request-analysis/agent-acceptance";
import type { LoggedRequest } from "../../src/tools/request-analysis/request-log";

let ids = 0;
function request(tokens: readonly number[], tools: readonly string[], reply?: { cached: number; firstTokenMs?: number } | "refused"): LoggedRequest {
  const id = `r-${++ids}`;
  const at = new Date(0).toISOString();
  const outcome =
    reply === undefined
      ? undefined
      : reply === "refused"
        ? { kind: "outcome" as const, format: 1 as const, id, at, error: { code: "capacity", message: "over capacity" } }
        : {
            kind: "outcome" as const,
            format: 1 as const,
            id,
            at,
            reply: {
              sessionId: "s",
              cached: reply.cached,
              prefilled: tokens.length - reply.cached,
              rewound: 0,
              generated: 5,
              stopReason: "eog",
              position: tokens.length + 5,
              capacity: 32_768,
              ...(reply.firstTokenMs !== undefined ? { firstTokenMs: reply.firstTokenMs } : {}),
            },
          };
  return {
    kind: "request",
    format: 1,
    id,
    at,
    model: "m",
    messages: [],
    tools,
    toolsSha: "0",
    tokens,
    text: "",
    pieces: {},
    ...(outcome ? { outcome } : {}),
  };
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);
const TOOLS = ["read_file", "list_dir"];
const stable = range(0, 15_200);

describe("issue 36's acceptance on a recording", () => {
  it("a recording that meets it: every step ok, the figures from the step's first request with tools", () => {
    const first = [...stable, ...range(100_000, 400)];
    const afterTool = [...first, ...range(200_000, 50)];
    const followUp = [...afterTool, ...range(300_000, 30)];
    const requests = [
      request(range(50_000, 35), [], { cached: 0, firstTokenMs: 900 }), // a title request: no tools, not the step's figure
      request(first, TOOLS, { cached: 0, firstTokenMs: 350_000 }),
      request(afterTool, TOOLS, { cached: first.length, firstTokenMs: 4_000 }),
      request(followUp, TOOLS, { cached: afterTool.length, firstTokenMs: 3_000 }),
      request([...stable, ...range(400_000, 420)], TOOLS, { cached: 15_190, firstTokenMs: 18_000 }),
    ];
    const steps: AgentStep[] = [
      { name: "new conversation", kind: "first", from: 0, to: 3 },
      { name: "follow-up 1", kind: "follow-up", from: 3, to: 4 },
      { name: "second new conversation", kind: "new", from: 4, to: 5 },
    ];
    const figures = agentAcceptance(requests, steps);
    assert.deepEqual(
      figures.map((f) => [f.request, f.cached, f.firstTokenMs, f.failures]),
      [
        [2, 0, 350_000, []],
        [4, afterTool.length, 3_000, []],
        [5, 15_190, 18_000, []],
      ],
    );
    assert.equal(figures[1].heldBefore, afterTool.length);
    assert.match(acceptanceReport(figures), /second new conversation\s+#5\s+15,620\s+15,190\s+430\s+18\.0 s\s+ok/);
  });

  it("VS Code's order: a new conversation served 2,207 tokens from the store and its first token late", () => {
    const requests = [request([...stable.slice(0, 2_207), ...range(90_000, 13_400)], TOOLS, { cached: 2_207, firstTokenMs: 276_000 })];
    const [figures] = agentAcceptance(requests, [{ name: "second new conversation", kind: "new", from: 0, to: 1 }]);
    assert.deepEqual(figures.failures, [
      `cached 2207 < ${NEW_CONVERSATION_CACHED_MIN}`,
      `first token after 276000 ms ≥ ${NEW_CONVERSATION_FIRST_TOKEN_MAX_MS} ms`,
    ]);
    assert.match(acceptanceReport([figures]), /FAILED/);
  });

  it("the bounds themselves: 15,000 cached and 29,999 ms pass, 14,999 or 30,000 ms fail", () => {
    const tokens = range(0, 15_500);
    const check = (cached: number, firstTokenMs: number) =>
      agentAcceptance([request(tokens, TOOLS, { cached, firstTokenMs })], [{ name: "new", kind: "new", from: 0, to: 1 }])[0].failures.length;
    assert.equal(check(15_000, 29_999), 0);
    assert.equal(check(14_999, 29_999), 1);
    assert.equal(check(15_000, 30_000), 1);
  });

  it("a follow-up that prefilled again what its chat held fails, with how much", () => {
    const before = range(0, 1_000);
    const requests = [request(before, TOOLS, { cached: 0, firstTokenMs: 100 }), request([...before, 7, 8, 9], TOOLS, { cached: 600, firstTokenMs: 100 })];
    const [figures] = agentAcceptance(requests, [{ name: "follow-up 1", kind: "follow-up", from: 1, to: 2 }]);
    assert.deepEqual(figures.failures, ["prefilled again 400 of the 1000 tokens it shares with request #1 (cached 600)"]);
  });

  it("a refused request, one with no outcome, and a step with no Agent-mode request each fail, saying which", () => {
    const requests = [request(range(0, 20_000), TOOLS, "refused"), request(range(0, 100), TOOLS), request(range(0, 10), [], { cached: 0, firstTokenMs: 5 })];
    const failures = agentAcceptance(requests, [
      { name: "new conversation", kind: "first", from: 0, to: 1 },
      { name: "follow-up 1", kind: "follow-up", from: 1, to: 2 },
      { name: "second new conversation", kind: "new", from: 2, to: 3 },
    ]).map((f) => f.failures);
    assert.deepEqual(failures, [
      ["request #1 was not answered (refused: capacity)"],
      ["request #2 was not answered (no outcome recorded)"],
      ["no request of this step offered tools (not Agent mode, or nothing reached our model)"],
    ]);
  });
});
