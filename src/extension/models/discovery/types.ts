// What model discovery reports, and the bounded, never-throwing folder walking its stores share.
// Pure Node (no vscode): the stores only read folders and files.

import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { GgufSummary } from "../gguf-header";

/** The stores discovery looks in, in the order they are listed. */
export const MODEL_SOURCES = ["ollama", "lm-studio", "huggingface", "llama.cpp"] as const;
export type ModelSource = (typeof MODEL_SOURCES)[number];

/** Human names of the stores (Select Model… group titles). */
export const MODEL_SOURCE_LABELS: Readonly<Record<ModelSource, string>> = {
  ollama: "Ollama",
  "lm-studio": "LM Studio",
  huggingface: "Hugging Face cache",
  "llama.cpp": "llama.cpp cache",
};

export interface DiscoveredModel {
  /** The file to load, as found (an HF snapshot symlink keeps its readable name; an Ollama blob path). */
  readonly path: string;
  /** `path` with every symlink resolved; models are deduplicated on it. */
  readonly realPath: string;
  /** The store's name for it: `qwen2.5-coder:1.5b` (Ollama), `publisher/repo/file.gguf` (LM Studio), `org/repo/file.gguf` (HF), the file name (llama.cpp). */
  readonly name: string;
  readonly source: ModelSource;
  /** The file's size; for a split model (`-00001-of-00003.gguf`) the sum of its parts. */
  readonly sizeBytes: number;
  /** From the GGUF header (read anyway to check the file): architecture, context length, chat template… */
  readonly summary: GgufSummary;
}

export interface DiscoveryResult {
  readonly models: DiscoveredModel[];
  /** One line each, for the log: unreadable folders, broken symlinks, bad manifests, files that are not GGUF. */
  readonly problems: string[];
}

export interface DiscoveryOptions {
  /** Environment to read OLLAMA_MODELS, HF_HUB_CACHE, HF_HOME, LLAMA_CACHE, XDG_CACHE_HOME… from (default process.env). */
  readonly env?: NodeJS.ProcessEnv;
  /** Home folder (default os.homedir()). */
  readonly home?: string;
  /** Platform whose default folders are used (default process.platform). */
  readonly platform?: NodeJS.Platform;
  /**
   * Also look in system-wide stores outside home (Linux: the Ollama service's
   * /usr/share/ollama/.ollama/models). Default: only when `home` is not given.
   */
  readonly systemStores?: boolean;
}

/** A file a store names as a model, before it is checked to be a complete GGUF. */
export interface Candidate {
  readonly path: string;
  readonly name: string;
  readonly source: ModelSource;
  /** Further files that make up the model (the other parts of a split GGUF), counted in its size. */
  readonly parts?: readonly string[];
}

/** Limits that keep a walk bounded whatever is on disk. */
const WALK_LIMITS = {
  /** Directory entries looked at per store. */
  entries: 50_000,
} as const;

/** State of one store's walk: where problems go, how much budget is left, which folders were seen. */
export class StoreScan {
  readonly problems: string[] = [];
  private entries = 0;
  private exhausted = false;

  constructor(readonly label: string) {}

  problem(message: string): void {
    this.problems.push(`${this.label}: ${message}`);
  }

  /**
   * The entries of `dir` sorted by name, or undefined when it cannot be read. A missing folder is
   * no problem (the store is just not there) unless `mustExist`; anything else (no permission, a
   * file where a folder is expected, a symlink loop) is reported.
   */
  async list(dir: string, mustExist = false): Promise<Dirent[] | undefined> {
    if (this.exhausted) return undefined;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (code(error) !== "ENOENT" || mustExist) this.problem(`cannot read ${dir} (${describe(error)})`);
      return undefined;
    }
    this.entries += entries.length;
    if (this.entries > WALK_LIMITS.entries) {
      this.exhausted = true;
      this.problem(`stopped after ${WALK_LIMITS.entries} folder entries; the rest of this store is not listed`);
      return undefined;
    }
    return entries.sort((a, b) => compare(a.name, b.name));
  }

  /** What an entry is once symlinks are followed: "file", "dir", or undefined (a broken link is reported). */
  async kind(dir: string, entry: Dirent): Promise<"file" | "dir" | undefined> {
    if (entry.isFile()) return "file";
    if (entry.isDirectory()) return "dir";
    if (!entry.isSymbolicLink()) return undefined;
    try {
      const target = await stat(join(dir, entry.name));
      return target.isFile() ? "file" : target.isDirectory() ? "dir" : undefined;
    } catch (error) {
      this.problem(`broken symlink ${join(dir, entry.name)} (${describe(error)})`);
      return undefined;
    }
  }

  /**
   * The model files under `root` down to `maxDepth` folder levels (1: only root's own files):
   * names ending in `.gguf`, minus projectors and later split parts (see modelFileFilter). Paths
   * are relative to root, `/`-separated. Folders linked in twice (or in a loop) are walked once.
   */
  async ggufFiles(root: string, maxDepth: number): Promise<Array<{ path: string; relative: string; parts?: string[] }>> {
    const out: Array<{ path: string; relative: string; parts?: string[] }> = [];
    const seen = new Set<string>();
    const walk = async (dir: string, relative: string, depth: number): Promise<void> => {
      let real: string;
      try {
        real = await realpath(dir);
      } catch (error) {
        if (code(error) !== "ENOENT") this.problem(`cannot read ${dir} (${describe(error)})`);
        return;
      }
      if (seen.has(real)) return;
      seen.add(real);
      const entries = await this.list(dir);
      if (!entries) return;
      const names = new Set(entries.map((e) => e.name));
      for (const entry of entries) {
        const kind = await this.kind(dir, entry);
        const rel = relative ? `${relative}/${entry.name}` : entry.name;
        if (kind === "dir" && depth < maxDepth) await walk(join(dir, entry.name), rel, depth + 1);
        if (kind !== "file") continue;
        const verdict = modelFileFilter(entry.name, names);
        if (verdict === "skip") continue;
        if (typeof verdict === "object" && verdict.missing.length > 0) {
          this.problem(`split model ${join(dir, entry.name)} is missing ${verdict.missing.join(", ")}; skipped`);
          continue;
        }
        out.push({ path: join(dir, entry.name), relative: rel, ...(typeof verdict === "object" ? { parts: verdict.parts.map((p) => join(dir, p)) } : {}) });
      }
    };
    await walk(root, "", 1);
    return out;
  }
}

const SPLIT = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/i;

/**
 * Whether a file name in a model folder is a model to list: "model"; a split model's first part
 * with the names of its other parts (and those missing from `siblings`); or "skip" for anything
 * else: not ending in `.gguf` (so `.partial`, `.incomplete`, `.download`, `.part`,
 * `x.gguf.part1of2`…), a multimodal projector (`mmproj*`), a split model's later part.
 */
export function modelFileFilter(name: string, siblings: ReadonlySet<string>): "model" | "skip" | { parts: string[]; missing: string[] } {
  if (!/\.gguf$/i.test(name) || /mmproj/i.test(name) || name.startsWith(".")) return "skip";
  const split = SPLIT.exec(name);
  if (!split) return "model";
  const [, stem, part, of] = split as unknown as [string, string, string, string];
  if (Number(part) !== 1) return "skip";
  const parts: string[] = [];
  for (let i = 2; i <= Number(of); i++) parts.push(`${stem}-${String(i).padStart(5, "0")}-of-${of}.gguf`);
  return { parts, missing: parts.filter((p) => !siblings.has(p)) };
}

export function code(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : undefined;
}

export function describe(error: unknown): string {
  return code(error) ?? (error instanceof Error ? error.message : String(error));
}

/** Code-unit order: the same on every machine and locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Resolved environment for the stores. */
export interface StoreEnv {
  readonly env: NodeJS.ProcessEnv;
  readonly home: string;
  readonly platform: NodeJS.Platform;
  readonly systemStores: boolean;
  /** An environment variable as a folder (`~/` expanded, relative paths resolved), or undefined when unset or empty. */
  folder(name: string): string | undefined;
}

export function storeEnv(options: DiscoveryOptions = {}): StoreEnv {
  const env = options.env ?? process.env;
  const home = options.home ?? homedir();
  return {
    env,
    home,
    platform: options.platform ?? process.platform,
    systemStores: options.systemStores ?? options.home === undefined,
    folder(name) {
      const value = env[name]?.trim();
      if (!value) return undefined;
      if (value === "~" || value.startsWith("~/") || value.startsWith("~\\")) return join(home, value.slice(1));
      return isAbsolute(value) ? value : resolve(value);
    },
  };
}
