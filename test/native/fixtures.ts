// A throwaway model folder in the Core ML layout (model + tokenizer files) for tests.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { gunzipSync } from "node:zlib";

const FIXTURES = path.join(__dirname, "fixtures");

export function smolTokenizerJson(): string {
  return gunzipSync(readFileSync(path.join(FIXTURES, "smollm2-tokenizer.json.gz"))).toString("utf8");
}

export function smolTokenizerConfig(): string {
  return readFileSync(path.join(FIXTURES, "smollm2-tokenizer_config.json"), "utf8");
}

/** A folder holding an (empty) model.mlpackage and SmolLM2's tokenizer files. */
const created: string[] = [];
process.on("exit", () => {
  for (const folder of created) rmSync(folder, { recursive: true, force: true });
});

export function makeModelFolder(): string {
  const folder = mkdtempSync(path.join(os.tmpdir(), "coreml-model-"));
  created.push(folder);
  mkdirSync(path.join(folder, "model.mlpackage"));
  writeFileSync(path.join(folder, "model.mlpackage", "Manifest.json"), "{}");
  writeFileSync(path.join(folder, "tokenizer.json"), smolTokenizerJson());
  writeFileSync(path.join(folder, "tokenizer_config.json"), smolTokenizerConfig());
  return folder;
}
