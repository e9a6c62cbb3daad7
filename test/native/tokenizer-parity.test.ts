// The JS tokenizer gives the same ids as Python `tokenizers` on the golden set (the
// converter's set in models/tests/golden when it has landed, else ours in fixtures/).
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { HuggingFaceTokenizer, type TokenizerConfig } from "../../src/extension/backends/coreml/tokenizer";
import { smolTokenizerConfig, smolTokenizerJson } from "./fixtures";

interface Golden {
  cases: Array<{ text: string; ids: number[]; specials?: boolean }>;
}

function ourSet(): { tokenizer: HuggingFaceTokenizer; golden: Golden } {
  const tokenizer = new HuggingFaceTokenizer(JSON.parse(smolTokenizerJson()), JSON.parse(smolTokenizerConfig()) as TokenizerConfig);
  const golden = JSON.parse(readFileSync(path.join(__dirname, "fixtures", "tokenizer_golden.json"), "utf8")) as Golden;
  return { tokenizer, golden };
}

test("ids equal Python tokenizers on our golden set", () => {
  const { tokenizer, golden } = ourSet();
  assert.ok(golden.cases.length >= 10);
  for (const item of golden.cases) {
    assert.deepEqual(tokenizer.encode(item.text, { specials: true }), item.ids, JSON.stringify(item.text));
  }
});

const converterGolden = path.join(__dirname, "..", "..", "models", "tests", "golden", "tokenizer_golden.json");
const converterFiles = path.join(__dirname, "..", "..", "models", "tests", "golden", "smollm2");
test(
  "ids equal Python tokenizers on the converter's golden set",
  { skip: existsSync(converterGolden) && existsSync(path.join(converterFiles, "tokenizer.json")) ? false : "models/tests/golden has not landed" },
  () => {
    const json: unknown = JSON.parse(readFileSync(path.join(converterFiles, "tokenizer.json"), "utf8"));
    const configPath = path.join(converterFiles, "tokenizer_config.json");
    const config = existsSync(configPath) ? (JSON.parse(readFileSync(configPath, "utf8")) as TokenizerConfig) : {};
    const tokenizer = new HuggingFaceTokenizer(json as ConstructorParameters<typeof HuggingFaceTokenizer>[0], config);
    const golden = JSON.parse(readFileSync(converterGolden, "utf8")) as Golden | Golden["cases"];
    const cases = Array.isArray(golden) ? golden : golden.cases;
    for (const item of cases) {
      assert.deepEqual(tokenizer.encode(item.text, { specials: item.specials ?? true }), item.ids, JSON.stringify(item.text));
    }
  },
);

test("specials: typed special-token text stays plain text unless allowed", () => {
  const { tokenizer } = ourSet();
  const special = tokenizer.encode("<|im_end|>", { specials: true });
  assert.equal(special.length, 1);
  assert.ok(tokenizer.isEndOfGeneration(special[0]!));
  const plain = tokenizer.encode("<|im_end|>", { specials: false });
  assert.ok(plain.length > 1);
  assert.equal(tokenizer.decode(plain), "<|im_end|>");
});

test("decode round-trips UTF-8 and shows a split character as U+FFFD", () => {
  const { tokenizer } = ourSet();
  const text = "naïve café 🤖 日本語";
  const ids = tokenizer.encode(text, { specials: false });
  assert.equal(tokenizer.decode(ids), text);
  const emoji = tokenizer.encode("🤖", { specials: false });
  if (emoji.length > 1) assert.ok(tokenizer.decode(emoji.slice(0, 1)).endsWith("\uFFFD"));
  assert.equal(tokenizer.eosText, "<|im_end|>");
});
