// Select Model… (local files) and Download Model… (recommended models, with progress).

import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { MODEL_CATALOG } from "../../models/catalog";
import { type DiscoveredModel, discoverLocalModels, MODEL_SOURCE_LABELS } from "../../models/discovery/index";
import { downloadCatalogModel } from "../../models/hub-download";
import { defaultModelCandidates, modelsFolder } from "./model-location";
import { writeModelPath } from "../settings/settings";

const MODEL_PATTERN = /\.(gguf|mlpackage|mlmodelc)$/i;

function localModels(context: vscode.ExtensionContext): string[] {
  const found = new Set<string>(defaultModelCandidates(context).filter((p) => existsSync(p)));
  for (const dir of [modelsFolder(context), join(context.extensionPath, ".cache", "models")]) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (MODEL_PATTERN.test(name)) found.add(path);
      else if (statSync(path).isDirectory() && readdirSync(path).some((n) => /\.(mlpackage|mlmodelc)$/i.test(n))) found.add(path);
    }
  }
  return [...found];
}

async function useModel(path: string, name = path.split(/[\\/]/).pop()): Promise<void> {
  await writeModelPath(path);
  void vscode.window.showInformationMessage(
    `Stateful Chat will use ${name}. New chats use it now; existing chats switch after Reset Conversation.`,
  );
}

function formatSize(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.max(1, Math.round(bytes / 1e6))} MB`;
}

const realPathOf = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

interface ModelPick extends vscode.QuickPickItem {
  readonly path: string;
  readonly name?: string;
}

/** discoverLocalModels, its problems (and any failure) to the log, never a popup. */
async function discoverForPicker(log: vscode.LogOutputChannel | undefined): Promise<DiscoveredModel[]> {
  try {
    const found = await discoverLocalModels();
    for (const problem of found.problems) log?.warn(`Model discovery: ${problem}`);
    log?.info(`Model discovery: ${found.models.length} model(s) found in local stores`);
    return found.models;
  } catch (error) {
    log?.error(`Model discovery failed: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  }
}

/** The GGUFs found in Ollama, LM Studio, the HF cache and llama.cpp's cache not already in `known`, one group per store. */
function discoveredItems(models: readonly DiscoveredModel[], known: readonly string[]): ModelPick[] {
  const listed = new Set(known.map(realPathOf));
  const items: ModelPick[] = [];
  let group: string | undefined;
  for (const model of models) {
    if (listed.has(model.realPath)) continue;
    const label = MODEL_SOURCE_LABELS[model.source];
    if (label !== group) items.push({ label, kind: vscode.QuickPickItemKind.Separator, path: "" });
    group = label;
    items.push({ label: model.name, description: `${label} · ${formatSize(model.sizeBytes)}`, detail: model.path, path: model.path, name: model.name });
  }
  return items;
}

export function registerModelCommands(context: vscode.ExtensionContext, log?: vscode.LogOutputChannel): void {
  context.subscriptions.push(
    // An optional path argument skips the picker (keybindings, other extensions, tests).
    vscode.commands.registerCommand("statefulChat.selectModel", async (path?: unknown) => {
      if (typeof path === "string" && path) {
        if (!existsSync(path)) {
          void vscode.window.showErrorMessage(`Model file not found: ${path}`);
          return;
        }
        return useModel(path);
      }
      // A promise of the items: the picker opens at once and shows progress while the stores are read.
      const items = (async (): Promise<ModelPick[]> => {
        const discovery = discoverForPicker(log);
        const workspaceFiles = await vscode.workspace.findFiles("**/*.gguf", "**/node_modules/**", 50);
        const paths = [...new Set([...localModels(context), ...workspaceFiles.map((u) => u.fsPath)])];
        const browse: ModelPick = { label: "$(folder-opened) Browse…", path: "" };
        const discovered = discoveredItems(await discovery, paths);
        const separator: ModelPick[] = discovered.length > 0 ? [{ label: "", kind: vscode.QuickPickItemKind.Separator, path: "" }] : [];
        return [...paths.map((path) => ({ label: path.split(/[\\/]/).pop() ?? path, description: path, path })), ...discovered, ...separator, browse];
      })();
      const picked = await vscode.window.showQuickPick(items, {
        placeHolder: "Select a model: a .gguf file (llama.cpp) or a stateful Core ML .mlpackage / .mlmodelc",
      });
      if (!picked) return;
      if (picked.path) return useModel(picked.path, picked.name);
      const chosen = await vscode.window.showOpenDialog({
        canSelectFiles: true,
        canSelectFolders: true,
        canSelectMany: false,
        openLabel: "Use Model",
        filters: { Models: ["gguf", "mlpackage", "mlmodelc"] },
      });
      if (chosen?.[0]) await useModel(chosen[0].fsPath);
    }),
    // An optional catalog id argument skips the picker; resolves with the model path or undefined.
    vscode.commands.registerCommand("statefulChat.downloadModel", async (entryId?: unknown): Promise<string | undefined> => {
      const byId = typeof entryId === "string" ? MODEL_CATALOG.find((e) => e.id === entryId) : undefined;
      if (typeof entryId === "string" && !byId) {
        void vscode.window.showErrorMessage(`Unknown model "${entryId}". Known: ${MODEL_CATALOG.map((e) => e.id).join(", ")}`);
        return undefined;
      }
      const picked = byId ? { label: byId.label, entry: byId } : await vscode.window.showQuickPick(
        MODEL_CATALOG.map((entry) => ({
          label: entry.label,
          description: `${entry.backend === "coreml" ? "Core ML" : "GGUF"} · ~${Math.round(entry.approxBytes / 1e6)} MB`,
          detail: entry.description,
          entry,
        })),
        { placeHolder: "Download a recommended model" },
      );
      if (!picked) return undefined;
      try {
        const path = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: `Downloading ${picked.entry.label}`, cancellable: true },
          async (progress, token) => {
            const controller = new AbortController();
            token.onCancellationRequested(() => controller.abort());
            let reported = 0;
            return downloadCatalogModel(picked.entry, modelsFolder(context), {
              signal: controller.signal,
              onProgress: ({ receivedBytes, totalBytes, file }) => {
                const total = totalBytes ?? picked.entry.approxBytes;
                const percent = Math.min(100, (100 * receivedBytes) / total);
                progress.report({ message: `${file}: ${Math.round(receivedBytes / 1e6)} / ${Math.round(total / 1e6)} MB`, increment: percent - reported });
                reported = percent;
              },
            });
          },
        );
        await useModel(path);
        return path;
      } catch (error) {
        void vscode.window.showErrorMessage(
          `Download failed: ${error instanceof Error ? error.message : String(error)} (run the command again to resume)`,
        );
        return undefined;
      }
    }),
  );
}
