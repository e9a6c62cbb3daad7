import assert from "node:assert/strict";
import { it } from "node:test";
import { StreamDecoder } from "../../src/extension/core/stream-decoder";
import { ByteTokenizer } from "../support/fake-engine";

it("streaming decode never splits a UTF-8 character and reproduces the text exactly", () => {
  const tokenizer = new ByteTokenizer();
  const text = "naïve café 東京 😀🚀 done. ".repeat(5);
  const tokens = tokenizer.encode(text, { specials: false });
  const decoder = new StreamDecoder(tokenizer);
  const pieces: string[] = [];
  for (const t of tokens) {
    const piece = decoder.push(t);
    assert.ok(!piece.includes("\uFFFD"), `no replacement character in ${JSON.stringify(piece)}`);
    pieces.push(piece);
  }
  pieces.push(decoder.flush());
  assert.equal(pieces.join(""), text);
  assert.ok(pieces.filter((p) => p === "").length > 0, "multi-byte characters were held back");
});

it("a reply cut inside a character flushes what there is", () => {
  const tokenizer = new ByteTokenizer();
  const bytes = tokenizer.encode("ok 😀", { specials: false });
  const decoder = new StreamDecoder(tokenizer);
  let out = "";
  for (const t of bytes.slice(0, -2)) out += decoder.push(t);
  assert.equal(out, "ok ");
  assert.equal(decoder.flush(), "\uFFFD");
});
