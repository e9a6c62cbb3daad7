// "Set Up a Model…" (the walkthrough's step, and the empty chat's offer while the tiny
// default answers): the models already on this machine first (Ollama, LM Studio, the Hugging
// Face cache, llama.cpp's cache), then the download that fits this machine's memory, then
// the rest of the catalog. A download runs through Download Model… (progress, Cancel, resume,
// checksum); the chosen model is then used by new chats, and an empty chat switches to it.

import { totalmem } from "node:os";
import * as vscode from "vscode";
import { MODEL_CATALOG, type CatalogEntry } from "../../models/catalog";
import { discoverLocalModels, MODEL_SOURCE_LABELS, type DiscoveredModel } from "../../models/discovery/index";
import { recommendedModel } from "../../models/recommend";
import { rememberModelLabel } from "./model-labels";
import { writeModelPath } from "../settings/settings";

const SETUP_MODEL_COMMAND = "statefulChat.setUpModel";

type SetupPick = vscode.QuickPickItem & ({ readonly model: DiscoveredModel } | { readonly entry: CatalogEntry } | { readonly browse: true } | object);

function megabytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.max(1, Math.round(bytes / 1e6))} MB`;
}

/** The picker's rows: on-disk models by store, then downloads (the recommended one first), then Browse…. */
function setupItems(models: readonly DiscoveredModel[], totalMemoryBytes: number, platform: NodeJS.Platform): SetupPick[] {
  const items: SetupPick[] = [];
  if (models.length > 0) items.push({ label: "On this machine", kind: vscode.QuickPickItemKind.Separator });
  for (const model of models) {
    items.push({ label: `$(database) ${model.name}`, description: `${MODEL_SOURCE_LABELS[model.source]} · ${megabytes(model.sizeBytes)}`, detail: model.path, model });
  }
  const recommended = recommendedModel(totalMemoryBytes, MODEL_CATALOG);
  const downloads = MODEL_CATALOG.filter((e) => e.backend === "llamacpp" || platform === "darwin");
  const ordered = recommended ? [recommended.entry, ...downloads.filter((e) => e !== recommended.entry)] : downloads;
  items.push({ label: "Download", kind: vscode.QuickPickItemKind.Separator });
  for (const entry of ordered) {
    const star = entry === recommended?.entry;
    items.push({
      label: `${star ? "$(star-full)" : "$(cloud-download)"} ${entry.label}`,
      description: `~${megabytes(entry.approxBytes)}${star ? ` · recommended: ${recommended!.reason}` : ""}`,
      detail: entry.description,
      entry,
    });
  }
  items.push({ label: "", kind: vscode.QuickPickItemKind.Separator }, { label: "$(folder-opened) Browse for a model file…", browse: true });
  return items;
}

async function discovered(log: vscode.LogOutputChannel): Promise<DiscoveredModel[]> {
  try {
    const found = await discoverLocalModels();
    for (const problem of found.problems) log.warn(`Model discovery: ${problem}`);
    return found.models;
  } catch (error) {
    log.error(`Model discovery failed: ${error instanceof Error ? error.message : String(error)}`);
    return [];
  }
}

async function chosenPath(picked: SetupPick, context: vscode.ExtensionContext): Promise<{ path: string; label?: string } | undefined> {
  if ("model" in picked) {
    await rememberModelLabel(context.globalState, picked.model.path, picked.model.name);
    return { path: picked.model.path, label: picked.model.name };
  }
  if ("entry" in picked) {
    // Download Model… with the entry: its progress notification (Cancel), resume and checksum; it sets the model.
    const path = await vscode.commands.executeCommand<string | undefined>("statefulChat.downloadModel", picked.entry.id);
    return path ? { path, label: picked.entry.label } : undefined;
  }
  if ("browse" in picked) {
    await vscode.commands.executeCommand("statefulChat.selectModel");
  }
  return undefined;
}

/** `openChat`: shows the chat view (the composition root passes the chat room's own focus). */
export function registerSetupModel(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, openChat: () => void): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(SETUP_MODEL_COMMAND, async (): Promise<string | undefined> => {
      const items = discovered(log).then((models) => setupItems(models, totalmem(), process.platform));
      const picked = await vscode.window.showQuickPick(items, {
        title: "Set Up a Model",
        placeHolder: "Use a model you already have, or download one that fits this machine",
        matchOnDescription: true,
        matchOnDetail: true,
        // Run from the walkthrough's button, the Welcome page takes the focus back right after
        // and would close the pick before it could be read.
        ignoreFocusOut: true,
      });
      if (!picked) return undefined;
      const chosen = await chosenPath(picked, context);
      if (!chosen) return undefined;
      if ("model" in picked) {
        // (Download Model… sets the model and says so itself.)
        await writeModelPath(chosen.path);
        const open = "Open Chat";
        void vscode.window.showInformationMessage(`Stateful Chat will use ${chosen.label ?? chosen.path}: new chats and chats not started yet.`, open).then((answer) => {
          if (answer === open) openChat();
        });
      }
      return chosen.path;
    }),
  );
}
