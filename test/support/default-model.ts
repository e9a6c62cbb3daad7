// Where the tests find the real default model. The test command fetches it first
// (npm run fetch-model); a missing model is a test failure, never a silent skip.

import { existsSync } from "node:fs";
import { join } from "node:path";

export const repoRoot = join(__dirname, "..", "..");

export function defaultModelFile(): string {
  const path =
    process.env.STATEFUL_CHAT_MODEL ?? join(repoRoot, ".cache", "models", "SmolLM2-135M-Instruct.Q4_1.gguf");
  if (!existsSync(path)) {
    throw new Error(`Default model missing at ${path}: run "npm run fetch-model" first`);
  }
  return path;
}
