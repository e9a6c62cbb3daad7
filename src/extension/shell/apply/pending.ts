// Applied changes waiting for the user's word: Keep or Undo (in the diff editor's title, the
// command palette or on the chat's code block), or Ctrl+Z in the file, which brings back the
// original text and so settles the change as undone. Two context keys drive the title
// buttons: `statefulChat.applyPending` and `statefulChat.applyPendingPaths` (the files' URI
// paths, for `resourcePath in …`). Once settled, a change's blocks follow the document: the
// editor's undo after Keep reverts it, a redo keeps it again (follow-document.ts).

import * as vscode from "vscode";
import { minimalEdit } from "../../core/apply/minimal-edit";
import type { SettledApplyState } from "../../../webview/protocol/messages";
import { followDocument, settledMessage } from "./follow-document";
import { closeDiffsOf, type VirtualDocuments } from "./virtual-documents";

export type Settled = SettledApplyState;
type SettledListener = (settled: Settled, message: string) => void;

export interface PendingChange {
  readonly uri: vscode.Uri;
  readonly label: string;
  /** The text before the first apply; undefined when Apply created the file. */
  readonly original: string | undefined;
  /** The document had unsaved changes before: it stays in memory, never written on Keep. */
  readonly wasDirty: boolean;
  /** The left side of the diff. */
  readonly originalUri: vscode.Uri;
  /** The document's version right after the apply (an Undo with no edit since uses VS Code's own undo). */
  appliedVersion: number;
  /** The document's text right after the apply: a redo after Undo, or after a revert, brings it back. */
  appliedText: string;
  /** Told when the change is kept or undone, then when the document reverts or redoes it (the chat's code blocks). */
  readonly listeners: SettledListener[];
  /** Where its diff opened: the file is shown there after Keep or Undo (the chat's group stays as it was). */
  column?: vscode.ViewColumn;
  /** Set once it is being settled (by a command or by Ctrl+Z): what both wait for. */
  settling?: Promise<void>;
}

/**
 * Saves a document. A save may be refused while another one of the same document is running
 * (e.g. right after the file was opened): then it waits for that and tries once more.
 */
async function save(document: vscode.TextDocument): Promise<boolean> {
  if (await document.save()) return true;
  for (let waited = 0; waited < 2_000 && document.isDirty; waited += 100) await new Promise((r) => setTimeout(r, 100));
  return !document.isDirty || document.save();
}

/** A settled change whose blocks follow the document until it closes or is applied to again. */
interface FollowedChange {
  readonly label: string;
  readonly texts: { readonly original: string; readonly applied: string };
  state: Settled;
  readonly listeners: readonly SettledListener[];
}

export class PendingChanges implements vscode.Disposable {
  private readonly byUri = new Map<string, PendingChange>();
  private readonly followed = new Map<string, FollowedChange>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly documents: VirtualDocuments,
    private readonly log: (message: string) => void,
  ) {
    this.subscriptions.push(
      vscode.workspace.onDidChangeTextDocument((event) => {
        if (event.contentChanges.length === 0) return;
        const key = event.document.uri.toString();
        const pending = this.byUri.get(key);
        // Ctrl+Z (or editing by hand) back to the original: nothing is pending any more.
        if (pending && pending.original !== undefined && event.document.getText() === pending.original) {
          void this.settle(pending, "undone");
          return;
        }
        const followed = this.followed.get(key);
        if (followed) this.follow(followed, event.document.getText());
      }),
      vscode.workspace.onDidCloseTextDocument((document) => {
        const key = document.uri.toString();
        this.followed.delete(key);
        const pending = this.byUri.get(key);
        if (pending && !document.isDirty && pending.original !== undefined) void this.settle(pending, "kept");
      }),
    );
  }

  get all(): readonly PendingChange[] {
    return [...this.byUri.values()];
  }

  get(uri: vscode.Uri): PendingChange | undefined {
    return this.byUri.get(uri.toString());
  }

  add(change: PendingChange): void {
    // Applied again: the earlier change's blocks keep their last word.
    this.followed.delete(change.uri.toString());
    this.byUri.set(change.uri.toString(), change);
    this.updateContext();
  }

  /** The pending change a title button or palette command means: its argument, the active diff or editor, or the only one. */
  find(arg: unknown): PendingChange | undefined {
    if (arg instanceof vscode.Uri) return this.byUri.get(arg.toString()) ?? this.all.find((p) => p.originalUri.toString() === arg.toString());
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    if (tab instanceof vscode.TabInputTextDiff) {
      const found = this.byUri.get(tab.modified.toString()) ?? this.all.find((p) => p.originalUri.toString() === tab.original.toString());
      if (found) return found;
    }
    const editor = vscode.window.activeTextEditor?.document.uri;
    if (editor && this.byUri.has(editor.toString())) return this.byUri.get(editor.toString());
    return this.byUri.size === 1 ? this.all[0] : undefined;
  }

  /** Keep: the change stays; a file that was saved before is saved again (as refactorings do, `files.refactoring.autoSave`). */
  async keep(change: PendingChange): Promise<void> {
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === change.uri.toString());
    const autoSave = vscode.workspace.getConfiguration("files").get<boolean>("refactoring.autoSave", true);
    // Not `document.isDirty`: the host's flag may lag right after the edit.
    if (document && !document.isClosed && !change.wasDirty && autoSave && !(await save(document))) {
      this.log(`Keep: saving ${change.label} failed; it stays changed, unsaved`);
    }
    await this.settle(change, "kept");
    if (document && !document.isClosed) await vscode.window.showTextDocument(document, { preview: false, viewColumn: change.column });
  }

  /** Undo: exactly what was there before (the text, and a saved file stays unmodified); a created file is deleted. */
  async undo(change: PendingChange): Promise<void> {
    if (change.original === undefined) {
      const edit = new vscode.WorkspaceEdit();
      edit.deleteFile(change.uri, { ignoreIfNotExists: true });
      await vscode.workspace.applyEdit(edit);
      await this.settle(change, "undone");
      return;
    }
    const document = await vscode.workspace.openTextDocument(change.uri);
    if (!change.wasDirty && document.getText() !== change.original && document.version === change.appliedVersion) {
      // A saved file, nothing edited since the apply: the editor's own undo restores the text and its saved state.
      // (Not for a file with unsaved changes: undoing there can write the file, which Apply never does.)
      await vscode.window.showTextDocument(document, { preview: false, viewColumn: change.column });
      await vscode.commands.executeCommand("undo");
      this.log(`Undo: ${change.label} by the editor's undo${document.getText() === change.original ? "" : ", which did not restore it"}`);
    }
    if (document.getText() !== change.original) {
      const edit = new vscode.WorkspaceEdit();
      const back = minimalEdit(document.getText(), change.original);
      if (back) edit.replace(change.uri, new vscode.Range(document.positionAt(back.start), document.positionAt(back.end)), back.text);
      await vscode.workspace.applyEdit(edit);
      // The disk still holds the original (Apply never saves before Keep): mark it saved again.
      if (!change.wasDirty && document.getText() === change.original) await save(document);
      this.log(`Undo: ${change.label} restored by an edit back to its text${change.wasDirty ? ", unsaved as it was" : ", saved as it was"}`);
    }
    await this.settle(change, "undone");
  }

  /** Settles a change once; whoever settles it again (Undo after the Ctrl+Z it caused) waits for the same. */
  private settle(change: PendingChange, settled: Settled): Promise<void> {
    if (change.settling) return change.settling;
    if (this.byUri.get(change.uri.toString()) !== change) return Promise.resolve();
    this.byUri.delete(change.uri.toString());
    this.updateContext();
    const listeners = change.listeners.splice(0);
    const message = settledMessage(settled, change.label, "settled");
    for (const listener of listeners) listener(settled, message);
    // A created file has no text before Apply to come back to: its blocks need not follow it.
    if (change.original !== undefined && listeners.length > 0) {
      this.followed.set(change.uri.toString(), { label: change.label, texts: { original: change.original, applied: change.appliedText }, state: settled, listeners });
    }
    change.settling = closeDiffsOf(change.originalUri).finally(() => this.documents.forget(change.originalUri));
    return change.settling;
  }

  /** The document changed after its change was settled: its blocks say what it holds now. */
  private follow(followed: FollowedChange, text: string): void {
    const next = followDocument(followed.state, text, followed.texts);
    if (next === followed.state) return;
    followed.state = next;
    const message = settledMessage(next, followed.label, "followed");
    this.log(`Apply: ${followed.label} ${next === "reverted" ? "reverted by the editor's undo after Keep" : "has the change again (redo)"}`);
    for (const listener of followed.listeners) listener(next, message);
  }

  private updateContext(): void {
    void vscode.commands.executeCommand("setContext", "statefulChat.applyPending", this.byUri.size > 0);
    void vscode.commands.executeCommand("setContext", "statefulChat.applyPendingPaths", this.all.map((p) => p.uri.path));
  }

  dispose(): void {
    for (const d of this.subscriptions.splice(0)) d.dispose();
    this.byUri.clear();
    this.followed.clear();
  }
}
