// The chat history's commands: Open Chat History… (a kept conversation continues in a new
// panel), Delete Chat from History… and Clear Chat History (both ask first: nothing brings a
// deleted conversation back).

import * as vscode from "vscode";
import type { PanelManager } from "./panel-manager";
import type { HistoryItem, SavedTranscript, TranscriptStore } from "../../chats/transcript-store";

const HISTORY_COMMANDS = {
  open: "statefulChat.openHistory",
  delete: "statefulChat.deleteFromHistory",
  clear: "statefulChat.clearHistory",
} as const;

const NOTHING_KEPT = "No earlier conversations yet: reset or close a chat to keep it in history.";

function pickItems(items: readonly HistoryItem[]) {
  return items.map((item) => ({
    label: item.title,
    description: new Date(item.updatedAt).toLocaleString(),
    detail: `${item.entries} messages`,
    file: item.file,
  }));
}

/** Asks which kept conversation to open; undefined when none is kept, the pick is dismissed or the copy cannot be read (each said). */
export async function pickFromHistory(store: TranscriptStore, placeHolder: string): Promise<SavedTranscript | undefined> {
  const items = await store.history();
  if (items.length === 0) {
    void vscode.window.showInformationMessage(NOTHING_KEPT);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(pickItems(items), { placeHolder, matchOnDescription: true });
  if (!picked) return undefined;
  const saved = await store.loadHistory(picked.file);
  if (!saved) void vscode.window.showErrorMessage("That conversation could not be read.");
  return saved;
}

export function registerHistoryCommands(context: vscode.ExtensionContext, manager: PanelManager, store: TranscriptStore): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(HISTORY_COMMANDS.open, async () => {
      const saved = await pickFromHistory(store, "Open an earlier conversation (it continues in a new panel)");
      if (saved) await manager.openTranscript(saved);
    }),
    vscode.commands.registerCommand(HISTORY_COMMANDS.delete, async () => {
      const items = await store.history();
      if (items.length === 0) {
        void vscode.window.showInformationMessage(NOTHING_KEPT);
        return;
      }
      const picked = await vscode.window.showQuickPick(pickItems(items), {
        placeHolder: "Delete which conversations from history?",
        matchOnDescription: true,
        canPickMany: true,
      });
      if (!picked || picked.length === 0) return;
      const what = picked.length === 1 ? `“${picked[0]!.label}”` : `${picked.length} conversations`;
      const remove = "Delete";
      if ((await vscode.window.showWarningMessage(`Delete ${what} from chat history? This cannot be undone.`, { modal: true }, remove)) !== remove) return;
      await store.deleteHistory(picked.map((p) => p.file));
    }),
    vscode.commands.registerCommand(HISTORY_COMMANDS.clear, async () => {
      const items = await store.history();
      if (items.length === 0) {
        void vscode.window.showInformationMessage("Chat history is already empty.");
        return;
      }
      const clear = "Clear History";
      const question = `Delete all ${items.length} conversations from chat history? Open chats stay as they are. This cannot be undone.`;
      if ((await vscode.window.showWarningMessage(question, { modal: true }, clear)) !== clear) return;
      await store.clearHistory();
    }),
  );
}
