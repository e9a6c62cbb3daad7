// The chat provider's last model list, kept in globalState, so VS Code's Chat view can list
// our models at startup without loading the features bundle (and with it model discovery).
// Stored with a fingerprint of what it was made from (the extension's version and our settings
// as this window resolves them, workspace values included): read back only when the fingerprint
// is the same and every entry has the shape VS Code expects; anything else counts as no cache.
// Models added to or removed from disk since are not seen until the features load (they then
// tell VS Code to ask again).

import type * as vscode from "vscode";

export const MODEL_INFO_KEY = "statefulChat.lmModelInfo";

type Memento = Pick<vscode.Memento, "get" | "update">;

export function readModelInfo(state: Memento, fingerprint: string): vscode.LanguageModelChatInformation[] | undefined {
  const stored: unknown = state.get(MODEL_INFO_KEY);
  if (typeof stored !== "object" || stored === null || (stored as { fingerprint?: unknown }).fingerprint !== fingerprint) return undefined;
  const value: unknown = (stored as { models?: unknown }).models;
  if (!Array.isArray(value) || value.length === 0 || !value.every(isModelInfo)) return undefined;
  return value;
}

export function writeModelInfo(state: Memento, fingerprint: string, models: readonly vscode.LanguageModelChatInformation[]): Thenable<void> {
  // Plain data only (what isModelInfo reads back): no class instances into globalState.
  const plain = models.map((m) => ({
    id: m.id,
    name: m.name,
    family: m.family,
    version: m.version,
    maxInputTokens: m.maxInputTokens,
    maxOutputTokens: m.maxOutputTokens,
    capabilities: { ...m.capabilities },
    ...(typeof m.tooltip === "string" ? { tooltip: m.tooltip } : {}),
    ...(typeof m.detail === "string" ? { detail: m.detail } : {}),
  }));
  return state.update(MODEL_INFO_KEY, plain.every(isModelInfo) ? { fingerprint, models: plain } : undefined);
}

function isModelInfo(value: unknown): value is vscode.LanguageModelChatInformation {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  const strings = ["id", "name", "family", "version"].every((k) => typeof v[k] === "string" && v[k] !== "");
  const counts = ["maxInputTokens", "maxOutputTokens"].every((k) => typeof v[k] === "number" && Number.isInteger(v[k]) && (v[k] as number) > 0);
  const optional = ["tooltip", "detail"].every((k) => v[k] === undefined || typeof v[k] === "string");
  const capabilities = typeof v.capabilities === "object" && v.capabilities !== null && Object.values(v.capabilities).every((c) => c === undefined || typeof c === "boolean" || typeof c === "number");
  return strings && counts && optional && capabilities;
}
