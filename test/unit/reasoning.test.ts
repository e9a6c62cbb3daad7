// Reasoning markers: what is thinking and what is the answer (Copy, Insert, overflow summary).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseChatArgs } from "../../src/extension/cli/chat-args";
import { PromptSegments } from "../../src/extension/core/prompt-segments";
import { Conversation } from "../../src/extension/core/conversation";
import { answerOf, DEFAULT_REASONING_MARKERS, reasoningMarkersOf, splitReasoning, ThinkingCounter } from "../../src/extension/core/reasoning";
import { ByteTokenizer, FakeEngine } from "../support/fake-engine";
import { THOUGHTS_DROPPING } from "../support/fixture-templates";

describe("reasoning in replies", () => {
  it("splits a reply that opens a think block, while streaming and when done", () => {
    assert.deepEqual(splitReasoning("<think>\nhmm"), { thinking: "hmm", thinkingDone: false, answer: "" });
    assert.deepEqual(splitReasoning("<think>\nhmm\n</think>\n\nYes."), { thinking: "hmm", thinkingDone: true, answer: "Yes." });
    assert.deepEqual(splitReasoning("Plain answer."), { thinkingDone: true, answer: "Plain answer." });
  });

  it("a close marker without an open one ends a block the generation prompt opened", () => {
    assert.deepEqual(splitReasoning("I should greet.</think>Hello!"), { thinking: "I should greet.", thinkingDone: true, answer: "Hello!" });
    assert.equal(answerOf("<think>x</think>\n\nAnswer"), "Answer");
  });

  it("uses the markers a template declares", () => {
    const markers = reasoningMarkersOf("{{ '[THINK]' }}{{ m.content.split('[/THINK]') }}");
    assert.deepEqual(markers, { open: "[THINK]", close: "[/THINK]" });
    assert.deepEqual(reasoningMarkersOf("{{ messages }}"), { open: "<think>", close: "</think>" });
    assert.equal(answerOf("[THINK]a[/THINK]b", markers), "b");
  });

  it("a generation prompt that opens the block: replies start inside it (DeepSeek-R1 style)", async () => {
    const markers = { ...DEFAULT_REASONING_MARKERS, openedByPrompt: true };
    assert.deepEqual(splitReasoning("I should", markers), { thinking: "I should", thinkingDone: false, answer: "" });
    assert.deepEqual(splitReasoning("hm</think>\n\nHi", markers), { thinking: "hm", thinkingDone: true, answer: "Hi" });
    const r1 = "{% for m in messages %}{{ m['content'] }}{% endfor %}{% if add_generation_prompt %}<|Assistant|><think>\n{% endif %}";
    const conversation = await Conversation.create(new FakeEngine(4096, 5, r1));
    assert.equal(conversation.reasoningMarkers.openedByPrompt, true);
    const qwen = await Conversation.create(new FakeEngine(4096, 5, THOUGHTS_DROPPING));
    assert.equal(qwen.reasoningMarkers.openedByPrompt, false, "an empty think block in the prompt is closed");
  });

  it("counts the tokens spent thinking", () => {
    const counter = new ThinkingCounter();
    for (const piece of ["<think>", "a", "b", "</think>", "\n", "answer"]) counter.push(piece);
    assert.equal(counter.count, 4);
    const plain = new ThinkingCounter();
    for (const piece of ["no", " thoughts"]) plain.push(piece);
    assert.equal(plain.count, 0);
  });
});

describe("prompt segments", () => {
  it("finds the last token boundary at or before a character, across and inside segments", () => {
    const tokenizer = new ByteTokenizer();
    const segments = new PromptSegments(tokenizer);
    segments.append({ text: "abc", tokens: tokenizer.encode("abc", { specials: false }) });
    segments.append({ text: "déf", tokens: tokenizer.encode("déf", { specials: false }) });
    assert.deepEqual(segments.boundaryAtOrBefore(3), { tokens: 3, chars: 3 });
    assert.deepEqual(segments.boundaryAtOrBefore(5), { tokens: 6, chars: 5 }, "é is two bytes: both are kept");
    assert.deepEqual(segments.boundaryAtOrBefore(4), { tokens: 4, chars: 4 });
    segments.truncate(segments.boundaryAtOrBefore(4));
    assert.equal(segments.text, "abcd");
    assert.deepEqual(segments.tokens(), [97, 98, 99, 100]);
  });
});

describe("chat --history", () => {
  it("defaults to template and accepts asGenerated", () => {
    assert.equal(parseChatArgs([]).history, "template");
    assert.equal(parseChatArgs(["--history", "asGenerated"]).history, "asGenerated");
    assert.throws(() => parseChatArgs(["--history", "never"]), /--history must be one of template, asGenerated/);
  });
});
