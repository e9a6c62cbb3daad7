// Reasoning in replies: a streamed <think> block renders as a collapsed "Thinking…"
// disclosure, ends as "Thought for N tokens", expands on click, and Copy takes the answer.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { HostToWebview, TurnStatsView } from "../../src/webview/protocol/messages";
import { init, WebviewHarness, type ChatPage } from "./harness";

const THOUGHTS = "The user wants a square function.\n```python\nthis is not the answer\n```\nKeep it short.";
const ANSWER = "Here it is:\n\n```python\ndef square(x):\n    return x * x\n```";
const REPLY = `<think>\n${THOUGHTS}\n</think>\n\n${ANSWER}`;
const STATS: TurnStatsView = { prefilled: 30, cached: 100, position: 200, capacity: 4096, ttftMs: 50, decodeTokensPerSec: 60, replyTokens: 70, restored: false, rewound: 0, thinkingTokens: 23 };

function chunks(text: string, size = 4): HostToWebview[] {
  const out: HostToWebview[] = [];
  for (let i = 0; i < text.length; i += size) out.push({ type: "tokens", id: "a1", text: text.slice(i, i + size) });
  return out;
}

describe("webview reasoning disclosure", () => {
  let harness: WebviewHarness;
  let chat: ChatPage;

  before(async () => {
    harness = await WebviewHarness.start();
  });
  after(async () => {
    await harness.stop();
  });

  it("streams thoughts into a collapsed disclosure, then the answer beside it", async () => {
    chat = await harness.open();
    await chat.push(init([]), { type: "entry", entry: { id: "a1", role: "assistant", text: "", status: "streaming" } });
    const thoughtsEnd = REPLY.indexOf("</think>");
    await chat.push(...chunks(REPLY.slice(0, thoughtsEnd)));
    await chat.nextFrames();
    const entry = chat.entry("a1");
    const details = entry.getByTestId("thinking");
    assert.equal(await details.isVisible(), true);
    assert.equal(await details.getAttribute("open"), null, "collapsed while thinking");
    assert.equal((await entry.getByTestId("thinking-summary").textContent())?.trim(), "Thinking…");
    assert.equal(await entry.getByTestId("thinking-text").isVisible(), false);
    assert.equal(await entry.locator(".entry-answer").textContent(), "", "no answer yet");

    await chat.push(...chunks(REPLY.slice(thoughtsEnd)));
    await chat.push({ type: "entryDone", id: "a1", status: "complete", text: REPLY, stats: STATS });
    await chat.nextFrames();
    assert.equal((await entry.getByTestId("thinking-summary").textContent())?.trim(), "Thought for 23 tokens");
    assert.equal(await details.getAttribute("open"), null, "still collapsed when done");
    assert.match((await entry.locator(".entry-answer").textContent()) ?? "", /def square/);
    assert.doesNotMatch((await entry.locator(".entry-answer").textContent()) ?? "", /square function|not the answer/);
    assert.equal(await entry.getByTestId("copy-code").count(), 1, "code buttons only on the answer's code");
    assert.deepEqual(chat.errors, []);
  });

  it("expands on click and shows the thoughts as plain text", async () => {
    const entry = chat.entry("a1");
    await entry.getByTestId("thinking-summary").click();
    assert.notEqual(await entry.getByTestId("thinking").getAttribute("open"), null);
    assert.equal(await entry.getByTestId("thinking-text").isVisible(), true);
    assert.equal(await entry.getByTestId("thinking-text").textContent(), THOUGHTS);
  });

  it("Copy and a code block's Copy take the answer only", async () => {
    const entry = chat.entry("a1");
    await entry.getByTestId("copy-reply").click();
    const copied = await chat.waitForPosted((m) => m.type === "copyCode");
    assert.deepEqual(copied, { type: "copyCode", code: ANSWER });
    await entry.getByTestId("copy-code").click();
    const posted = (await chat.posted()).filter((m) => m.type === "copyCode");
    assert.deepEqual(posted.at(-1), { type: "copyCode", code: "def square(x):\n    return x * x" });
  });

  it("a restored reply keeps both parts, and a template's own markers are honoured", async () => {
    chat = await harness.open();
    const model = { name: "m", backend: "llama.cpp", capacity: 4096, details: "", reasoning: { open: "[THINK]", close: "[/THINK]" } };
    await chat.push({ type: "init", transcript: [{ id: "a9", role: "assistant", text: "[THINK]hmm[/THINK]Yes.", status: "complete" }], busy: false, model });
    const entry = chat.entry("a9");
    assert.equal(await entry.getByTestId("thinking").isVisible(), true);
    assert.equal((await entry.getByTestId("thinking-summary").textContent())?.trim(), "Thought");
    assert.equal((await entry.locator(".entry-answer").textContent())?.trim(), "Yes.");
  });

  it("when the model's prompt opens the block, the reply streams into the disclosure from its first token", async () => {
    chat = await harness.open();
    const model = { name: "r1", backend: "llama.cpp", capacity: 4096, details: "", reasoning: { open: "<think>", close: "</think>", openedByPrompt: true } };
    await chat.push({ type: "init", transcript: [], busy: true, model }, { type: "entry", entry: { id: "r1", role: "assistant", text: "", status: "streaming" } });
    await chat.push({ type: "tokens", id: "r1", text: "Let me see" });
    await chat.nextFrames();
    const entry = chat.entry("r1");
    assert.equal((await entry.getByTestId("thinking-summary").textContent())?.trim(), "Thinking…");
    assert.equal(await entry.locator(".entry-answer").textContent(), "");
    await chat.push({ type: "tokens", id: "r1", text: ".</think>\n\nDone." });
    await chat.nextFrames();
    assert.equal((await entry.locator(".entry-answer").textContent())?.trim(), "Done.");
    assert.equal(await entry.getByTestId("thinking-text").textContent(), "Let me see.");
  });

  it("the status line shows rewound tokens when the template re-rendered the last exchange", async () => {
    chat = await harness.open();
    await chat.push(init([{ id: "a2", role: "assistant", text: "Hi", status: "complete", stats: { ...STATS, rewound: 42 } }]));
    assert.match((await chat.entry("a2").getByTestId("stats").textContent()) ?? "", /42 rewound/);
    await chat.push(init([{ id: "a3", role: "assistant", text: "Hi", status: "complete", stats: STATS }]));
    assert.doesNotMatch((await chat.entry("a3").getByTestId("stats").textContent()) ?? "", /rewound/);
  });
});
