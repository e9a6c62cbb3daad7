// The models the provider offers: the ones this extension loads (the default model, downloaded
// ones, statefulChat.modelPath) and the GGUFs the user already has in other tools' stores.
// Each is described from its GGUF header (context size, KV cache size per token, template,
// tool support) without loading it; headers are read once per file version. Everything here is asynchronous, and the
// other tools' stores are scanned once per 30 s at most (models/discovery/cache.ts), only when
// VS Code asks for the models: never while the extension activates.

import { readdir, realpath, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { createHash } from "node:crypto";
import type * as vscode from "vscode";
import { ChatTemplate } from "../../core/chat-template";
import { templateRendersTools } from "../../core/tool-calls/tool-call-formats";
import { MODEL_SOURCE_LABELS } from "../../models/discovery";
import { localModelDiscovery } from "../../models/discovery/cache";
import { ggufFileTypeName, ggufSummaryOf, readGgufMetadata, type GgufSummary } from "../../models/gguf-header";
import { kvGeometryOf, type KvGeometry } from "../../models/kv-geometry";
import { defaultModelCandidates, modelsFolder } from "../models/model-location";
import type { ChatSettings } from "../settings/settings";
import type { ProviderContext } from "./provider-context";

export interface CatalogModel {
  /** Stable per file: a hash of its real path. */
  readonly id: string;
  readonly path: string;
  readonly name: string;
  /** Where it was found ("Stateful Chat", "Ollama", …). */
  readonly origin: string;
  readonly summary?: GgufSummary;
  /** What a token of context costs (the provider's context size is planned with it). */
  readonly kv?: KvGeometry;
  /** The file's size: its weights, in memory once loaded. */
  readonly sizeBytes: number;
  readonly toolCalling: boolean;
}

interface Described {
  readonly summary?: GgufSummary;
  readonly kv?: KvGeometry;
  readonly sizeBytes: number;
  readonly tools: boolean;
}

const summaries = new Map<string, Described & { readonly mtimeMs: number }>();

async function modelIdOf(path: string): Promise<string> {
  let real = path;
  try {
    real = await realpath(path);
  } catch {
    // A missing file keeps its own path's id.
  }
  return createHash("sha256").update(real).digest("hex").slice(0, 16);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The `.gguf` files in a folder; none when it does not exist. */
async function ggufFilesIn(folder: string): Promise<string[]> {
  const names = await readdir(folder).catch(() => [] as string[]);
  return names.filter((name) => /\.gguf$/i.test(name)).map((name) => join(folder, name));
}

export async function catalogModels(context: vscode.ExtensionContext, settings: ChatSettings, log: vscode.LogOutputChannel): Promise<CatalogModel[]> {
  const candidates = [...defaultModelCandidates(context), ...(settings.modelPath ? [settings.modelPath] : [])];
  const present = await Promise.all(candidates.map(exists));
  const own = new Set<string>(candidates.filter((_, i) => present[i]));
  for (const path of await ggufFilesIn(modelsFolder(context))) own.add(path);

  const found: Array<{ path: string; name: string; origin: string; summary?: GgufSummary }> = [...own].map((path) => ({
    path,
    name: basename(path).replace(/\.gguf$/i, ""),
    origin: "Stateful Chat",
  }));
  const discovered = await localModelDiscovery.get();
  for (const problem of discovered.problems) log.debug(`Model discovery: ${problem}`);
  for (const model of discovered.models) found.push({ path: model.path, name: model.name, origin: MODEL_SOURCE_LABELS[model.source], summary: model.summary });

  const seen = new Set<string>();
  const models: CatalogModel[] = [];
  for (const entry of found) {
    if (!/\.gguf$/i.test(entry.path) && entry.origin === "Stateful Chat") continue;
    const id = await modelIdOf(entry.path);
    if (seen.has(id)) continue;
    seen.add(id);
    const described = await describe(entry.path, entry.summary, log);
    models.push({ id, path: entry.path, name: entry.name, origin: entry.origin, summary: described.summary, kv: described.kv, sizeBytes: described.sizeBytes, toolCalling: described.tools });
  }
  return models;
}

async function describe(path: string, known: GgufSummary | undefined, log: vscode.LogOutputChannel): Promise<Described> {
  let mtimeMs: number;
  let sizeBytes = 0;
  try {
    ({ mtimeMs, size: sizeBytes } = await stat(path));
  } catch {
    return { tools: false, sizeBytes };
  }
  const cached = summaries.get(path);
  if (cached && cached.mtimeMs === mtimeMs) return cached;
  let summary = known;
  let kv: KvGeometry | undefined;
  // Read even when discovery summarized it already: the KV geometry is not in the summary.
  try {
    const metadata = (await readGgufMetadata(path)).metadata;
    summary ??= ggufSummaryOf(metadata);
    kv = kvGeometryOf(metadata);
  } catch (error) {
    log.warn(`Could not read the GGUF header of ${path}: ${String(error)}`);
  }
  let tools = false;
  // Rendered (in the template sandbox) only when the template reads `tools` at all: listing
  // renders no more than it must, and a template that is stopped is named in the log.
  if (summary?.chatTemplate && /\btools\b/.test(summary.chatTemplate)) {
    try {
      tools = templateRendersTools(new ChatTemplate(summary.chatTemplate, { modelName: basename(path) }));
    } catch (error) {
      log.warn(`Model ${path}: ${error instanceof Error ? error.message : String(error)}`);
      tools = false;
    }
  }
  const entry = { mtimeMs, summary, kv, sizeBytes, tools };
  summaries.set(path, entry);
  return entry;
}

/**
 * What VS Code's model picker shows for a model. `context` is the provider's plan for it
 * (provider-settings.ts), the one its engine is loaded with: input and output together are its
 * capacity, so a request within maxInputTokens is never refused for size, with room for the
 * longest reply.
 */
export function chatInformationOf(model: CatalogModel, settings: ChatSettings, context: ProviderContext): vscode.LanguageModelChatInformation {
  const capacity = context.capacity;
  const maxOutputTokens = Math.min(settings.turn.maxTokens, Math.floor(capacity / 2));
  return {
    id: model.id,
    name: model.name,
    family: model.summary?.architecture ?? "gguf",
    version: ggufFileTypeName(model.summary?.fileType) ?? "gguf",
    detail: model.origin,
    tooltip: `${model.path}\nStateful: each request is served from a cached session; only new tokens are prefilled.`,
    maxInputTokens: capacity - maxOutputTokens,
    maxOutputTokens,
    capabilities: { toolCalling: model.toolCalling },
  };
}

/** One model by its catalog id, or the model at a path (listed or not). */
export async function catalogModelOf(
  context: vscode.ExtensionContext,
  settings: ChatSettings,
  log: vscode.LogOutputChannel,
  which: { readonly id: string } | { readonly path: string },
): Promise<CatalogModel> {
  if ("path" in which) {
    const described = await describe(which.path, undefined, log);
    const name = basename(which.path).replace(/\.gguf$/i, "");
    return { id: await modelIdOf(which.path), path: which.path, name, origin: "Stateful Chat", summary: described.summary, kv: described.kv, sizeBytes: described.sizeBytes, toolCalling: described.tools };
  }
  const found = (await catalogModels(context, settings, log)).find((m) => m.id === which.id);
  if (!found) throw new Error("Stateful Chat no longer offers this model; pick another one in the model picker.");
  return found;
}
