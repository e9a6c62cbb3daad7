// Workspace settings files are JSONC: comments and trailing commas are allowed, and must not
// hide (or invent) a key; strings that look like comments stay strings.

import assert from "node:assert/strict";
import { it } from "node:test";
import { parseJsonc } from "../../src/extension/shell/settings/jsonc";

it("reads comments and trailing commas as VS Code does", () => {
  const text = `\ufeff{
    // the server
    "statefulChat.server.url": "http://a//b", /* inline */
    "statefulChat.modelPath": "C:\\\\models\\\\\\"x\\".gguf",
    "list": [1, 2,],
    "nested": { "a": "/* not a comment */", },
  }`;
  assert.deepEqual(parseJsonc(text), {
    "statefulChat.server.url": "http://a//b",
    "statefulChat.modelPath": 'C:\\models\\"x".gguf',
    list: [1, 2],
    nested: { a: "/* not a comment */" },
  });
});

it("a comma inside a string before a brace is kept", () => {
  assert.deepEqual(parseJsonc('{"a": ",}", "b": ",]"}'), { a: ",}", b: ",]" });
});

it("broken JSONC throws, as VS Code would report it", () => {
  assert.throws(() => parseJsonc('{"a": }'), SyntaxError);
  assert.throws(() => parseJsonc('{"a": 1 /* unterminated'), SyntaxError);
});
