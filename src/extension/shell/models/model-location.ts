// Where the model a panel should use lives: the setting, or the default model (fetched on
// first use into the extension's storage when it is not already cached). One fetch serves
// every chat that waits for it; its notification's Cancel ends it (pip killed, the download
// aborted and kept for resuming), and so does the last waiting chat's Stop or close.

import { existsSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { ModelNotFoundError, StatefulChatError } from "../../core/errors";
import { DEFAULT_MODEL, ensureDefaultModel, ModelFetchError } from "../../models/default-model";
import { SharedLoads } from "../../core/shared-loads";
import { inVsCodeTerms } from "../settings/vscode-wording";

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

/** The one default-model fetch under way; its file stays on disk, so there is nothing to free. */
const defaultModelFetch = new SharedLoads<string>();

/**
 * The model file to load; fetches the default model when none is configured or cached.
 * `signal` (the chat's Stop or close) ends this caller's wait.
 */
export async function resolveModelPath(context: vscode.ExtensionContext, configured: string, signal?: AbortSignal): Promise<string> {
  if (configured) {
    if (!existsSync(configured)) throw new ModelNotFoundError(configured);
    return configured;
  }
  const cached = existingDefaultModel(context);
  if (cached) return cached;
  const storageRoot = context.globalStorageUri.fsPath;
  process.env.STATEFUL_CHAT_CACHE ??= join(storageRoot, "models");
  const lease = await defaultModelFetch.acquire(storageRoot, (abandoned) => fetchDefaultModel(storageRoot, abandoned), signal);
  lease.release();
  return lease.value;
}

async function fetchDefaultModel(storageRoot: string, abandoned: AbortSignal): Promise<string> {
  try {
    const fetched = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Stateful Chat: fetching the default model (${DEFAULT_MODEL.fileName})…`,
        // Cancel kills pip / aborts the download; every chat waiting is told (ModelFetchCancelledError) and Retry fetches again.
        cancellable: true,
      },
      (progress, token) => {
        const cancel = new AbortController();
        token.onCancellationRequested(() => cancel.abort());
        let shownMb = -1;
        return ensureDefaultModel(storageRoot, (line) => progress.report({ message: line }), {
          signal: AbortSignal.any([cancel.signal, abandoned]),
          // Once per MB, not once per chunk.
          onProgress: ({ receivedBytes, totalBytes }) => {
            const mb = Math.floor(receivedBytes / 1e6);
            if (mb === shownMb) return;
            shownMb = mb;
            progress.report({ message: `${mb}${totalBytes ? ` / ${Math.round(totalBytes / 1e6)}` : ""} MB` });
          },
        });
      },
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
