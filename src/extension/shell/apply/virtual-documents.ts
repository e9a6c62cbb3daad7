// Read-only documents that exist only in memory: the original of an applied change (the left
// side of its diff) and a fast apply's proposal while it streams. One URI scheme, a key per
// change; the path names the file (core/apply/virtual-paths.ts: a proposal is plain text, so no
// language server reports its errors).

import * as vscode from "vscode";
import { virtualPath, type VirtualKind } from "../../core/apply/virtual-paths";

export const APPLY_SCHEME = "stateful-chat-apply";

export class VirtualDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private counter = 0;

  /** A new document for `fileName` holding `text` (a proposal's are plain text: core/apply/virtual-paths.ts). */
  create(kind: VirtualKind, fileName: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: APPLY_SCHEME, path: virtualPath(kind, ++this.counter, fileName) });
    this.texts.set(uri.toString(), text);
    return uri;
  }

  update(uri: vscode.Uri, text: string): void {
    if (!this.texts.has(uri.toString()) || this.texts.get(uri.toString()) === text) return;
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
  }

  textOf(uri: vscode.Uri): string | undefined {
    return this.texts.get(uri.toString());
  }

  forget(uri: vscode.Uri): void {
    this.texts.delete(uri.toString());
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }

  dispose(): void {
    this.changed.dispose();
    this.texts.clear();
  }
}

/** Closes every diff tab whose left or right side is `uri`. */
export async function closeDiffsOf(uri: vscode.Uri): Promise<void> {
  const key = uri.toString();
  const tabs = vscode.window.tabGroups.all.flatMap((group) =>
    group.tabs.filter((tab) => tab.input instanceof vscode.TabInputTextDiff && (tab.input.original.toString() === key || tab.input.modified.toString() === key)),
  );
  if (tabs.length > 0) await vscode.window.tabGroups.close(tabs, true);
}

/**
 * Where a diff of `uri` opens: the group showing the file, else beside a chat (a webview
 * tab) so the chat stays in view, else the active group.
 */
export function diffColumn(uri: vscode.Uri): vscode.ViewColumn | undefined {
  const visible = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
  if (visible?.viewColumn) return visible.viewColumn;
  return vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputWebview ? vscode.ViewColumn.Beside : undefined;
}

/** The group of the diff tab whose right side is `modified`. */
export function columnOfDiff(modified: vscode.Uri): vscode.ViewColumn | undefined {
  const key = modified.toString();
  return vscode.window.tabGroups.all.find((group) => group.tabs.some((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === key))?.viewColumn;
}
