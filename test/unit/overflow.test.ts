import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ChatMessage } from "../../src/extension/core/chat-template";
import { exchanges, planSummarySeed, planTruncateSeed, wouldOverflow, type TokenBudget } from "../../src/extension/core/overflow";

const measure = (messages: readonly ChatMessage[]) => messages.reduce((n, m) => n + m.content.length + 4, 0);
const history: ChatMessage[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "u1".padEnd(40, ".") },
  { role: "assistant", content: "a1".padEnd(40, ".") },
  { role: "user", content: "u2".padEnd(40, ".") },
  { role: "assistant", content: "a2".padEnd(40, ".") },
];
const user: ChatMessage = { role: "user", content: "new question" };

describe("overflow policy", () => {
  it("detects a turn that would not fit, counting the reply reserve and the margin", () => {
    const budget: TokenBudget = { capacity: 512, margin: 64, reserve: 100 };
    assert.equal(wouldOverflow(300, 48, budget), false);
    assert.equal(wouldOverflow(300, 49, budget), true);
  });

  it("groups user/assistant exchanges and ignores system messages", () => {
    assert.equal(exchanges(history).length, 2);
  });

  it("summarize keeps system + summary + last exchange when it leaves room", () => {
    const budget: TokenBudget = { capacity: 600, margin: 50, reserve: 100 };
    const seed = planSummarySeed({ systemPrompt: "sys", summary: "they talked", history, user, budget, measure });
    assert.equal(seed.length, 3);
    assert.match(seed[0].content, /Summary of the earlier conversation:\nthey talked/);
    assert.equal(seed[1].content, history[3].content);
  });

  it("summarize drops the last exchange, then the summary, when space is short", () => {
    const budget: TokenBudget = { capacity: 200, margin: 50, reserve: 100 };
    const seed = planSummarySeed({ systemPrompt: "sys", summary: "they talked", history, user, budget, measure });
    assert.equal(seed.length, 1);
    assert.ok(measure([...seed, user]) <= 50);
  });

  it("summarize drops the last exchange when keeping it would overflow again soon", () => {
    const budget: TokenBudget = { capacity: 400, margin: 50, reserve: 100 };
    const seed = planSummarySeed({ systemPrompt: "sys", summary: "they talked", history, user, budget, measure });
    assert.equal(seed.length, 1);
    assert.match(seed[0].content, /they talked/);
  });

  it("truncate keeps the most recent exchanges that leave room", () => {
    const budget: TokenBudget = { capacity: 400, margin: 50, reserve: 100 };
    const seed = planTruncateSeed({ systemPrompt: "sys", history, user, budget, measure });
    assert.deepEqual(
      seed.map((m) => m.content.slice(0, 3)),
      ["sys", "u2.", "a2."],
    );
  });
});
