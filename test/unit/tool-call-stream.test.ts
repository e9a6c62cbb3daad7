// Tool calls in a streamed reply, in each format a chat template can teach: text released as
// it streams, calls parsed when complete, a malformed call returned as the text it was.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChatTemplate } from "../../src/extension/core/chat-template";
import { templateRendersTools, toolCallFormatOf, TOOL_CALL_FORMATS } from "../../src/extension/core/tool-calls/tool-call-formats";
import { ToolCallStream, type ReplyPart } from "../../src/extension/core/tool-calls/tool-call-stream";
import { CHATML } from "../support/fixture-templates";
import { QWEN_TOOLS } from "../support/fixture-templates";

/** Feed `text` in chunks of `size` characters; returns every part and what was released before the end. */
function run(format: (typeof TOOL_CALL_FORMATS)[number], text: string, size = 3): { parts: ReplyPart[]; streamed: string } {
  const stream = new ToolCallStream(format);
  const parts: ReplyPart[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(...stream.push(text.slice(i, i + size)));
  const streamed = parts.filter((p) => p.kind === "text").map((p) => (p as { text: string }).text).join("");
  parts.push(...stream.end());
  return { parts, streamed };
}

const textOf = (parts: ReplyPart[]) => parts.filter((p) => p.kind === "text").map((p) => (p as { text: string }).text).join("");
const callsOf = (parts: ReplyPart[]) => parts.flatMap((p) => (p.kind === "toolCall" ? [p.call] : []));

describe("ToolCallStream", () => {
  it("hermes: text streams, each <tool_call> becomes a call, text after it continues", () => {
    const reply = 'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Rome"}}\n</tool_call>\n<tool_call>{"name": "now", "arguments": "{}"}</tool_call>done';
    const { parts, streamed } = run("hermes", reply);
    assert.ok(streamed.startsWith("Let me check.\n"), "text before the call streamed before the end");
    assert.deepEqual(callsOf(parts).map((c) => [c.name, c.arguments]), [["get_weather", { city: "Rome" }], ["now", {}]]);
    assert.equal(textOf(parts), "Let me check.\n\ndone");
    assert.deepEqual(callsOf(parts).map((c) => c.id), ["call_0", "call_1"]);
  });

  it("hermes: malformed or cut-off calls come back as text, never thrown", () => {
    const bad = 'x <tool_call>{"name": "f", "arguments": {oops}}</tool_call> y';
    assert.equal(textOf(run("hermes", bad).parts), bad);
    assert.equal(callsOf(run("hermes", bad).parts).length, 0);
    const noName = '<tool_call>{"arguments": {}}</tool_call>';
    assert.equal(textOf(run("hermes", noName).parts), noName);
    const cut = 'a <tool_call>{"name": "f", "argu';
    assert.equal(textOf(run("hermes", cut).parts), cut);
    const cutButComplete = '<tool_call>{"name": "f", "arguments": {"a": 1}}';
    assert.deepEqual(callsOf(run("hermes", cutButComplete).parts)[0]?.arguments, { a: 1 });
  });

  it("hermes: a partial marker at a chunk end is held, not lost or split", () => {
    const stream = new ToolCallStream("hermes");
    assert.deepEqual(stream.push("abc <tool_"), [{ kind: "text", text: "abc " }]);
    assert.deepEqual(stream.push("x> def"), [{ kind: "text", text: "<tool_x> def" }]);
    assert.deepEqual(stream.end(), []);
  });

  it("mistral: [TOOL_CALLS] with a JSON list, and the name[ARGS]{…} form", () => {
    const list = run("mistral", 'Sure.[TOOL_CALLS] [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {}}]');
    assert.deepEqual(callsOf(list.parts).map((c) => c.name), ["a", "b"]);
    assert.equal(textOf(list.parts), "Sure.");
    const args = run("mistral", '[TOOL_CALLS]search[ARGS]{"q": "kv cache"}');
    assert.deepEqual(callsOf(args.parts)[0], { id: "call_0", name: "search", arguments: { q: "kv cache" } });
    const bad = "[TOOL_CALLS] not json";
    assert.equal(textOf(run("mistral", bad).parts), bad);
  });

  it("llama3-json: a reply that is one JSON call (parameters), with or without <|python_tag|>", () => {
    const plain = run("llama3-json", '{"name": "read_file", "parameters": {"path": "a.ts"}}');
    assert.deepEqual(callsOf(plain.parts)[0]?.arguments, { path: "a.ts" });
    assert.equal(plain.streamed, "", "held until it is known to be a call");
    const tagged = run("llama3-json", '<|python_tag|>{"name": "f", "parameters": {}}; {"name": "g", "parameters": {"k": "v"}}');
    assert.deepEqual(callsOf(tagged.parts).map((c) => c.name), ["f", "g"]);
    const prose = run("llama3-json", "A JSON object looks like {\"a\": 1}.");
    assert.equal(callsOf(prose.parts).length, 0);
    assert.equal(textOf(prose.parts), "A JSON object looks like {\"a\": 1}.");
    const notACall = '{"a": 1}';
    assert.equal(textOf(run("llama3-json", notACall).parts), notACall);
  });

  it("the format and the tool capability are read from the template", () => {
    assert.equal(toolCallFormatOf(QWEN_TOOLS), "hermes");
    assert.equal(toolCallFormatOf("{{ '[TOOL_CALLS]' }}"), "mistral");
    assert.equal(toolCallFormatOf("{{ '<|python_tag|>' }}"), "llama3-json");
    assert.equal(templateRendersTools(new ChatTemplate(QWEN_TOOLS)), true);
    assert.equal(templateRendersTools(new ChatTemplate(CHATML)), false);
  });
});
