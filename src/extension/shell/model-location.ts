// Where the model a panel should use lives: the setting, or the default model (fetched on
// first use into the extension's storage when it is not already cached).

import { existsSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { ModelNotFoundError, StatefulChatError } from "../core/errors";
import { DEFAULT_MODEL, ensureDefaultModel, ModelFetchError } from "../models/default-model";
import { inVsCodeTerms } from "./vscode-wording";

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
  try {
    const fetched = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Stateful Chat: fetching the default model (${DEFAULT_MODEL.fileName})…` },
      () => ensureDefaultModel(storageRoot),
    );
    return fetched.path;
  } catch (error) {
    // The fetcher is shared with the CLI (its advice names --model): say it the VS Code way,
    // as a load failure, whose banner offers Select Model…, Download Model… and Retry.
    if (error instanceof ModelFetchError) throw new StatefulChatError("model_load_failed", inVsCodeTerms(error.message));
    throw error;
  }
}

export function existingDefaultModel(context: vscode.ExtensionContext): string | undefined {
  return defaultModelCandidates(context).find((p) => existsSync(p));
}
