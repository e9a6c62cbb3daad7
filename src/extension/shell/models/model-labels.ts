// The names users know their models by. A model picked from Ollama's store is a file named by
// its digest (blobs/sha256-…); the picker knows it as "qwen2.5-coder:7b". The name is kept per
// path (global state, a bounded list) so the chat and the status bar show it, not the digest.

import type * as vscode from "vscode";

const KEY = "statefulChat.modelLabels";
const MAX_LABELS = 50;

type Labels = Record<string, string>;

function read(state: vscode.Memento): Labels {
  const value = state.get<unknown>(KEY);
  return typeof value === "object" && value !== null ? (value as Labels) : {};
}

export function modelLabelOf(state: vscode.Memento, path: string): string | undefined {
  const label = read(state)[path];
  return typeof label === "string" && label ? label : undefined;
}

/** Remembers `label` for `path` (the newest first; the oldest beyond MAX_LABELS go). */
export async function rememberModelLabel(state: vscode.Memento, path: string, label: string): Promise<void> {
  const rest = Object.entries(read(state)).filter(([p]) => p !== path);
  await state.update(KEY, Object.fromEntries([[path, label], ...rest].slice(0, MAX_LABELS)));
}
