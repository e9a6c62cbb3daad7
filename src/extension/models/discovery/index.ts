// Model discovery: the GGUF models the user already has in Ollama's store, LM Studio's models
// folder, the Hugging Face hub cache and llama.cpp's cache. Each store names candidate files;
// here each is checked to be a complete GGUF (its header read to the end of its metadata; not a
// projector or LoRA adapter), deduplicated by real path and sorted. Never throws: what cannot be
// read comes back as `problems`, one line each for the log.

import { realpath, stat } from "node:fs/promises";
import { GgufHeaderError, type GgufMetadata, ggufSummaryOf, readGgufMetadata } from "../gguf-header";
import { huggingFaceCandidates } from "./huggingface";
import { llamaCppCandidates } from "./llama-cpp";
import { lmStudioCandidates } from "./lm-studio";
import { ollamaCandidates } from "./ollama";
import {
  type Candidate, code, compare, describe, type DiscoveredModel, type DiscoveryOptions, type DiscoveryResult,
  MODEL_SOURCE_LABELS, MODEL_SOURCES, type ModelSource, type StoreEnv, StoreScan, storeEnv,
} from "./types";

export { MODEL_SOURCE_LABELS, modelFileFilter } from "./types";
export type { DiscoveredModel, DiscoveryOptions, DiscoveryResult } from "./types";

const STORES: Readonly<Record<ModelSource, (store: StoreEnv, scan: StoreScan) => Promise<Candidate[]>>> = {
  ollama: ollamaCandidates,
  "lm-studio": lmStudioCandidates,
  huggingface: huggingFaceCandidates,
  "llama.cpp": llamaCppCandidates,
};

/** GGUF headers read at once. */
const CONCURRENCY = 8;

/** general.architecture values of files that are parts of a model, not models. */
const NOT_A_MODEL = new Set(["clip", "mmproj"]);

interface Checked {
  readonly candidate: Candidate;
  readonly realPath: string;
  readonly sizeBytes: number;
  readonly metadata: GgufMetadata;
}

async function check(candidate: Candidate, realPath: string, scan: StoreScan): Promise<Checked | undefined> {
  const what = `${candidate.name} (${candidate.path})`;
  try {
    const info = await stat(realPath);
    if (!info.isFile()) return void scan.problem(`${what} is not a file; skipped`);
    if (info.size === 0) return void scan.problem(`${what} is empty (an unfinished download?); skipped`);
    let sizeBytes = info.size;
    for (const part of candidate.parts ?? []) sizeBytes += (await stat(part)).size;
    const metadata = await readGgufMetadata(realPath);
    const architecture = metadata.metadata.get("general.architecture");
    const type = metadata.metadata.get("general.type");
    if (typeof architecture === "string" && NOT_A_MODEL.has(architecture)) return undefined; // a projector named like a model
    if (type === "adapter") return void scan.problem(`${what} is a LoRA adapter, not a model; skipped`);
    return { candidate, realPath, sizeBytes, metadata };
  } catch (error) {
    const reason = error instanceof GgufHeaderError ? error.message : describe(error);
    scan.problem(`${what} skipped: ${reason}`);
    return undefined;
  }
}

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const order = (a: Candidate, b: Candidate) =>
  MODEL_SOURCES.indexOf(a.source) - MODEL_SOURCES.indexOf(b.source) || compare(a.name, b.name) || compare(a.path, b.path);

/**
 * The GGUF models in the usual local stores, sorted by store (MODEL_SOURCES order), then name,
 * then path; one entry per real file (the first in that order wins). Reads only folders and GGUF
 * headers; bounded (fixed folder depths per store, an entry budget, symlinked folders walked once).
 */
export async function discoverLocalModels(options: DiscoveryOptions = {}): Promise<DiscoveryResult> {
  const store = storeEnv(options);
  const scans = MODEL_SOURCES.map((source) => ({ source, scan: new StoreScan(MODEL_SOURCE_LABELS[source]) }));
  const candidates = (
    await Promise.all(
      scans.map(async ({ source, scan }) => {
        try {
          return (await STORES[source](store, scan)).map((candidate) => ({ candidate, scan }));
        } catch (error) {
          scan.problem(`not searched: ${describe(error)}`); // a bug, not the disk: still never thrown at the caller
          return [];
        }
      }),
    )
  ).flat();
  candidates.sort((a, b) => order(a.candidate, b.candidate));
  // One header read per real file: the first candidate (in listing order) for a file names it.
  const real = await mapLimited(candidates, CONCURRENCY, async ({ candidate, scan }) => {
    try {
      return await realpath(candidate.path);
    } catch (error) {
      const reason = code(error) === "ENOENT" ? "the file is missing (a broken symlink or a deleted blob)" : describe(error);
      scan.problem(`${candidate.name} (${candidate.path}) skipped: ${reason}`);
      return undefined;
    }
  });
  const seen = new Set<string>();
  const unique = candidates.flatMap((c, i) => {
    const realPath = real[i];
    if (realPath === undefined || seen.has(realPath)) return [];
    seen.add(realPath);
    return [{ ...c, realPath }];
  });
  const checked = await mapLimited(unique, CONCURRENCY, ({ candidate, realPath, scan }) => check(candidate, realPath, scan));
  const models: DiscoveredModel[] = [];
  for (const found of checked) {
    if (!found) continue;
    const { path, name, source } = found.candidate;
    models.push({ path, realPath: found.realPath, name, source, sizeBytes: found.sizeBytes, summary: ggufSummaryOf(found.metadata.metadata) });
  }
  return { models, problems: [...new Set(scans.flatMap(({ scan }) => scan.problems))] };
}
