// Context actions where users look for them: "Ask About Selection" in the editor's context
// menu (and a keybinding) attaches the selection to a chat; "Add File to Chat" in the
// explorer's context menu mentions the chosen files in it. The chat is the side bar's, shown
// without taking the focus, so the code asked about stays in view; an editor-tab chat the
// user keeps open beside the code (visible, the last one used) gets it instead.

import * as vscode from "vscode";
import type { ChatPanel } from "./chat-panel";
import type { ChatViewProvider } from "./chat-view";
import type { PanelManager } from "./panel-manager";
import { relativeLabel } from "../context/context-sources";
import { disposeSharedWorkspaceFiles } from "../context/workspace-files";

/** The chat to attach to, revealed (the focus stays where it is) so the user sees the chip. */
async function targetChat(manager: PanelManager, view: ChatViewProvider): Promise<ChatPanel> {
  const inView = manager.inView;
  if (inView?.surface.visible) {
    inView.reveal(true);
    return inView;
  }
  const beside = manager.lastEditorChat;
  if (beside?.surface.visible) {
    beside.reveal(true);
    return beside;
  }
  return view.chat(true);
}

export function registerContextCommands(context: vscode.ExtensionContext, manager: PanelManager, view: ChatViewProvider): void {
  context.subscriptions.push(
    { dispose: disposeSharedWorkspaceFiles },
    vscode.commands.registerCommand("statefulChat.askAboutSelection", async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.selection.isEmpty) {
        void vscode.window.showInformationMessage("Select some code in an editor first, then run “Stateful Chat: Ask About Selection”.");
        return;
      }
      // The chat is shown without the focus (the editor keeps its selection), then the selection is copied into it.
      const chat = await targetChat(manager, view);
      chat.composerContext.attachSelectionOf(editor);
    }),
    vscode.commands.registerCommand("statefulChat.addFileToChat", async (clicked?: vscode.Uri, selected?: vscode.Uri[]) => {
      const uris = selected && selected.length > 0 ? selected : clicked ? [clicked] : vscode.window.activeTextEditor ? [vscode.window.activeTextEditor.document.uri] : [];
      if (uris.length === 0) {
        void vscode.window.showInformationMessage("Right-click a file in the Explorer and choose “Stateful Chat: Add File to Chat”.");
        return;
      }
      const chat = await targetChat(manager, view);
      for (const uri of uris) chat.composerContext.addFile(relativeLabel(uri).label);
    }),
  );
}
