// Where a streaming reply may be frozen: pure logic, no browser.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lastStableCut } from "../../src/webview/markdown-split";

describe("lastStableCut", () => {
  it("cuts before a paragraph that follows a blank line", () => {
    const text = "one\n\ntwo\n";
    assert.equal(lastStableCut(text, 0), text.indexOf("two"));
  });

  it("waits for the line after the blank line to end", () => {
    assert.equal(lastStableCut("one\n\ntw", 0), 0);
  });

  it("never cuts inside a code fence, even at blank lines", () => {
    const text = "intro\n\n```py\na = 1\n\nb = 2\n";
    assert.equal(lastStableCut(text, 0), text.indexOf("```"));
    const closed = `${text}\`\`\`\n\nafter\n`;
    assert.equal(lastStableCut(closed, 0), closed.indexOf("after"));
  });

  it("does not cut before indented continuation lines (list items, code)", () => {
    assert.equal(lastStableCut("- item\n\n  more of item\n", 0), 0);
  });

  it("only moves forward from the given position", () => {
    const text = "a\n\nb\n\nc\n";
    const first = lastStableCut(text, 0);
    assert.equal(first, text.indexOf("c"));
    assert.equal(lastStableCut(text, first), first);
  });

  it("treats a longer closing fence as closing and a different marker as content", () => {
    const text = "~~~\n```\nstill code\n\n~~~~\n\nout\n";
    assert.equal(lastStableCut(text, 0), text.indexOf("out"));
  });
});
