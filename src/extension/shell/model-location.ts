// Where the model a panel should use lives: the setting, or the default model (fetched on
// first use into the extension's storage when it is not already cached).

import { existsSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { ModelNotFoundError } from "../core/errors";
import { DEFAULT_MODEL, ensureDefaultModel } from "../models/default-model";

export function defaultModelCandidates(context: vscode.ExtensionContext): string[] {
  const candidates = [
    process.env.STATEFUL_CHAT_MODEL,
    join(context.extensionPath, ".cache", "models", DEFAULT_MODEL.fileName),
    join(context.globalStorageUri.fsPath, "models", DEFAULT_MODEL.fileName),
  ];
  return candidates.filter((c): c is string => !!c);
}

export function modelsFolder(context: vscode.ExtensionContext): string {
  return join(context.globalStorageUri.fsPath, "models");
}

/** The model file to load; fetches the default model when none is configured or cached. */
export async function resolveModelPath(context: vscode.ExtensionContext, configured: string): Promise<string> {
  if (configured) {
    if (!existsSync(configured)) throw new ModelNotFoundError(configured);
    return configured;
  }
  const cached = existingDefaultModel(context);
  if (cached) return cached;
  const storageRoot = context.globalStorageUri.fsPath;
  process.env.STATEFUL_CHAT_CACHE ??= join(storageRoot, "models");
  const fetched = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Stateful Chat: fetching the default model (${DEFAULT_MODEL.fileName})…` },
    () => ensureDefaultModel(storageRoot),
  );
  return fetched.path;
}

export function existingDefaultModel(context: vscode.ExtensionContext): string | undefined {
  return defaultModelCandidates(context).find((p) => existsSync(p));
}
