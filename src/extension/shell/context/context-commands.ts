// Context actions where users look for them: "Ask About Selection" in the editor's context
// menu (and a keybinding) opens or focuses a chat with the selection attached; "Add File to
// Chat" in the explorer's context menu mentions the chosen files in the active chat.

import * as vscode from "vscode";
import type { ChatPanel } from "../chat-panel";
import type { PanelManager } from "../panel-manager";
import { relativeLabel } from "../context-sources";
import { disposeSharedWorkspaceFiles } from "./workspace-files";

/** The chat to attach to: the one last used, else a new one. Revealed, so the user sees the chip. */
function targetPanel(manager: PanelManager): ChatPanel {
  const panel = manager.active ?? manager.create();
  panel.reveal();
  return panel;
}

export function registerContextCommands(context: vscode.ExtensionContext, manager: PanelManager): void {
  context.subscriptions.push(
    { dispose: disposeSharedWorkspaceFiles },
    vscode.commands.registerCommand("statefulChat.askAboutSelection", () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.selection.isEmpty) {
        void vscode.window.showInformationMessage("Select some code in an editor first, then run “Stateful Chat: Ask About Selection”.");
        return;
      }
      // The panel takes the focus; the snapshot is taken first, while the editor still has it.
      const panel = manager.active ?? manager.create();
      panel.composerContext.attachSelectionOf(editor);
      panel.reveal();
    }),
    vscode.commands.registerCommand("statefulChat.addFileToChat", (clicked?: vscode.Uri, selected?: vscode.Uri[]) => {
      const uris = selected && selected.length > 0 ? selected : clicked ? [clicked] : vscode.window.activeTextEditor ? [vscode.window.activeTextEditor.document.uri] : [];
      if (uris.length === 0) {
        void vscode.window.showInformationMessage("Right-click a file in the Explorer and choose “Stateful Chat: Add File to Chat”.");
        return;
      }
      const panel = targetPanel(manager);
      for (const uri of uris) panel.composerContext.addFile(relativeLabel(uri).label);
    }),
  );
}
