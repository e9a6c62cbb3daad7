// The chat in the side bar: a WebviewView in its own view container (activity bar; movable to
// the secondary side bar), holding one chat at a time, the same chat as an editor tab's
// (ChatPanel on a view surface). Its title bar: New Chat, History, Open Chat in Editor. The
// view remembers its chat's id, so a window reload, or VS Code disposing the view when it is
// hidden or moved, brings the same conversation back (transcript and KV snapshot).

import * as vscode from "vscode";
import type { FeatureHosts } from "../../activation/feature-hosts";
import type { ChatPanel } from "./chat-panel";
import { viewSurface } from "./chat-surface";
import { pickFromHistory } from "./history-commands";
import type { PanelManager } from "./panel-manager";
import type { TranscriptStore } from "../../chats/transcript-store";

export const CHAT_VIEW_ID = "statefulChat.chatView";
const VIEW_CHAT_KEY = "statefulChat.viewChat";

const VIEW_COMMANDS = {
  newChat: "statefulChat.newChatInView",
  openHistory: "statefulChat.openHistoryInView",
  openInEditor: "statefulChat.openChatInEditor",
} as const;

export class ChatViewProvider implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  /** Settles once the view is resolved and holds a chat (commands wait for it after focusing the view). */
  private ready: Promise<ChatPanel>;
  private settle: (chat: ChatPanel) => void = () => undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly manager: PanelManager,
  ) {
    this.ready = this.pending();
  }

  async resolveWebviewView(view: vscode.WebviewView): Promise<void> {
    this.view = view;
    view.onDidDispose(() => {
      if (this.view !== view) return;
      this.view = undefined;
      this.ready = this.pending();
    });
    const id = this.context.workspaceState.get<string>(VIEW_CHAT_KEY);
    this.hold(await this.manager.showInView(viewSurface(view), { id }));
  }

  /**
   * The view's chat, the view shown first (`preserveFocus`: the keyboard stays where it is, as
   * Ask About Selection wants: the code being asked about stays in front of the user).
   */
  async chat(preserveFocus: boolean): Promise<ChatPanel> {
    if (this.view) {
      // The view is there; its chat may have been closed (then a new one takes its place).
      const current = this.manager.inView ?? this.hold(await this.manager.showInView(viewSurface(this.view)));
      current.reveal(preserveFocus);
      return current;
    }
    const editor = vscode.window.activeTextEditor;
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
    const chat = await this.ready;
    // Focusing a view that was never resolved takes the keyboard: give it back to the editor.
    if (preserveFocus && editor) await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
    return chat;
  }

  /** New Chat in the view: the conversation there is kept in history, the view starts empty. */
  async newChat(): Promise<ChatPanel> {
    const current = await this.chat(false);
    if (current.transcript.length === 0 || !this.view) return current;
    return this.hold(await this.manager.showInView(viewSurface(this.view)));
  }

  /** History in the view's title bar: the picked conversation continues in the view. */
  async openHistory(store: TranscriptStore): Promise<void> {
    const saved = await pickFromHistory(store, "Open an earlier conversation (it continues in the side bar)");
    if (!saved) return;
    await this.chat(false);
    if (this.view) this.hold(await this.manager.showInView(viewSurface(this.view), { seed: saved }));
  }

  /** Open Chat in Editor: the view's conversation moves to an editor tab (an empty one: a new tab chat); the view starts empty. */
  async openInEditor(): Promise<ChatPanel> {
    const current = this.view ? this.manager.inView : undefined;
    if (!current || current.transcript.length === 0 || !this.view) return this.manager.create();
    const moved = this.manager.moveToEditor(current);
    this.hold(await this.manager.showInView(viewSurface(this.view)));
    return moved;
  }

  private hold(chat: ChatPanel): ChatPanel {
    void this.context.workspaceState.update(VIEW_CHAT_KEY, chat.id);
    this.settle(chat);
    this.ready = Promise.resolve(chat);
    return chat;
  }

  private pending(): Promise<ChatPanel> {
    return new Promise((resolve) => (this.settle = resolve));
  }
}

export function registerChatView(context: vscode.ExtensionContext, manager: PanelManager, store: TranscriptStore, hosts: FeatureHosts): ChatViewProvider {
  const provider = new ChatViewProvider(context, manager);
  context.subscriptions.push(
    // Registered at activation (activation/lazy-features.ts, with its webview options); this attaches to it.
    hosts.registerWebviewViewProvider(CHAT_VIEW_ID, provider),
    vscode.commands.registerCommand(VIEW_COMMANDS.newChat, () => provider.newChat()),
    vscode.commands.registerCommand(VIEW_COMMANDS.openHistory, () => provider.openHistory(store)),
    vscode.commands.registerCommand(VIEW_COMMANDS.openInEditor, () => provider.openInEditor()),
  );
  return provider;
}
