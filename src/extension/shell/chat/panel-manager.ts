// Tracks the open chats: the editor tabs and the side bar view's one (chat-view.ts puts it
// there), which one is active, creating new ones, reopening them after a window reload
// (WebviewPanelSerializer), and the `statefulChat.streaming` context key.

import * as vscode from "vscode";
import type { FeatureHosts } from "../../activation/feature-hosts";
import { ChatPanel, CHAT_VIEW_TYPE, type PanelDeps } from "./chat-panel";
import { editorSurface, type ChatSurface } from "./chat-surface";
import { join } from "node:path";
import type { KvDiskBudget } from "../../core/request-pool/kv-disk-budget";
import { KV_FOLDERS, KvFolderBudget } from "../../snapshots/kv-disk-budget";
import { SnapshotStore } from "../../snapshots/snapshot-store";
import type { EngineRegistry } from "../engines/engine-registry";
import { PanelSnapshots } from "./panel-snapshots";
import { readSnapshotBudgetBytes } from "../settings/settings";
import { restoredChatId } from "../../chats/restored-chat-id";
import type { SavedTranscript, TranscriptStore } from "../../chats/transcript-store";

const OPEN_PANELS_KEY = "statefulChat.openPanels";

export class PanelManager implements vscode.Disposable {
  private readonly panels = new Set<ChatPanel>();
  /** The side bar view's chat: one view, one chat at a time. */
  private viewChat: ChatPanel | undefined;
  /** View chats let go for good (New Chat in the view, a history copy in its place): their snapshots go. */
  private readonly retiring = new Set<string>();
  private readonly changed = new vscode.EventEmitter<void>();
  /** A chat opened, closed, moved, changed state (busy, model loaded, active): the status bar follows. */
  readonly onDidChange = this.changed.event;
  /** Chats being closed as a window reload closes them: their snapshots stay. */
  private readonly closingForReload = new Set<string>();
  private lastActive: ChatPanel | undefined;
  private lastTextEditor: vscode.TextEditor | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** KV snapshots of the chats, under the extension's global storage. */
  readonly snapshots: PanelSnapshots;
  /** One disk budget (statefulChat.kvSnapshots.maxDiskMB) for every KV file: these snapshots and the chat provider's parked sessions. */
  readonly kvBudget: KvDiskBudget;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly registry: EngineRegistry,
    private readonly store: TranscriptStore,
    private readonly log: vscode.LogOutputChannel,
    hosts: FeatureHosts,
  ) {
    this.lastTextEditor = vscode.window.activeTextEditor;
    const storage = context.globalStorageUri.fsPath;
    const kvBudget = new KvFolderBudget(Object.values(KV_FOLDERS).map((folder) => join(storage, folder)), readSnapshotBudgetBytes);
    this.kvBudget = kvBudget;
    // Saves cut short by VS Code closing left temporary files that nothing else would remove.
    void kvBudget.sweep().then(
      (removed) => removed > 0 && log.info(`Removed ${removed} unfinished KV save file(s) left by an earlier session`),
      (error: unknown) => log.warn(`Removing unfinished KV save files failed: ${String(error)}`),
    );
    this.snapshots = new PanelSnapshots(new SnapshotStore(join(storage, KV_FOLDERS.panels), this.kvBudget), log, undefined, (id) => store.remove(id));
    this.subscriptions.push(
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor) this.lastTextEditor = editor;
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration("statefulChat")) for (const panel of this.panels) panel.applySettings();
      }),
      hosts.registerWebviewPanelSerializer(CHAT_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state: unknown) => {
          const id = this.claimRestoredId(state);
          this.track(await ChatPanel.reopen(editorSurface(panel), id, this.deps()));
        },
      }),
      this.changed,
    );
  }

  /** Every open chat: the editor tabs', then the side bar view's. */
  get all(): readonly ChatPanel[] {
    return this.viewChat ? [...this.panels, this.viewChat] : [...this.panels];
  }

  /** The chats in editor tabs. */
  get editorChats(): readonly ChatPanel[] {
    return [...this.panels];
  }

  /** The side bar view's chat, once the view was shown. */
  get inView(): ChatPanel | undefined {
    return this.viewChat;
  }

  /** The editor-tab chat last used (active or not), if it is still open. */
  get lastEditorChat(): ChatPanel | undefined {
    return this.lastActive && this.panels.has(this.lastActive) ? this.lastActive : undefined;
  }

  /**
   * Puts a chat on the side bar view: the one it held (by id: a reload, the view shown
   * again), a history copy (`seed`), or a new one. The chat it replaces is let go for good
   * (archived, its snapshot deleted); a view disposed by VS Code keeps its chat's snapshot.
   */
  async showInView(surface: ChatSurface, from: { readonly id?: string; readonly seed?: SavedTranscript } = {}): Promise<ChatPanel> {
    this.retireViewChat();
    const chat = from.id || from.seed ? await ChatPanel.reopen(surface, from.id, this.deps(), from.seed) : ChatPanel.start(surface, this.deps());
    this.retireViewChat();
    this.viewChat = chat;
    this.lastActive = chat;
    this.updateContextKeys();
    return chat;
  }

  /** Open Chat in Editor: the view's chat continues in an editor tab (same session, KV cache and transcript). */
  moveToEditor(chat: ChatPanel): ChatPanel {
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, chat.title || "Stateful Chat", vscode.ViewColumn.Active);
    if (this.viewChat === chat) this.viewChat = undefined;
    chat.moveTo(editorSurface(panel));
    return this.track(chat);
  }

  private retireViewChat(): void {
    const old = this.viewChat;
    if (!old) return;
    this.viewChat = undefined;
    this.retiring.add(old.id);
    old.close();
  }

  get active(): ChatPanel | undefined {
    return this.all.find((p) => p.active) ?? (this.lastActive && this.panels.has(this.lastActive) ? this.lastActive : undefined);
  }

  create(): ChatPanel {
    return this.track(ChatPanel.create(this.deps()));
  }

  /** Opens a chat again by id, the way the serializer reopens it after a window reload (tests use it). */
  async reopen(id: string): Promise<ChatPanel> {
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, "Stateful Chat", vscode.ViewColumn.Active);
    return this.track(await ChatPanel.reopen(editorSurface(panel), id, this.deps()));
  }

  /** Closes a chat as a window reload does (the host's shutdown keeps its snapshot); tests use it. */
  closeForReload(panel: ChatPanel): void {
    this.closingForReload.add(panel.id);
    panel.close();
  }

  async openTranscript(saved: SavedTranscript): Promise<ChatPanel> {
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, saved.title, vscode.ViewColumn.Active);
    return this.track(await ChatPanel.reopen(editorSurface(panel), undefined, this.deps(), saved));
  }

  private deps(): PanelDeps {
    return {
      context: this.context,
      registry: this.registry,
      snapshots: this.snapshots,
      store: this.store,
      log: this.log,
      lastTextEditor: () => this.lastTextEditor,
      onDidDispose: (panel) => {
        const inEditor = this.panels.delete(panel);
        if (this.viewChat === panel) this.viewChat = undefined;
        // An editor tab closed by the user goes for good; a view chat only when it was replaced
        // (VS Code disposes a view that is hidden or moved: it comes back with this chat).
        const forGood = inEditor ? !this.closingForReload.has(panel.id) : this.retiring.has(panel.id);
        this.closingForReload.delete(panel.id);
        this.retiring.delete(panel.id);
        if (forGood) void this.snapshots.forgetLater(panel.id);
        if (this.lastActive === panel) this.lastActive = undefined;
        this.rememberOpenPanels();
        this.updateContextKeys();
      },
      onDidChangeState: () => this.updateContextKeys(),
    };
  }

  private track(panel: ChatPanel): ChatPanel {
    this.panels.add(panel);
    this.lastActive = panel;
    this.rememberOpenPanels();
    this.updateContextKeys();
    return panel;
  }

  private updateContextKeys(): void {
    const active = this.all.find((p) => p.active);
    if (active) this.lastActive = active;
    const streaming = this.active?.busy ?? false;
    void vscode.commands.executeCommand("setContext", "statefulChat.streaming", streaming);
    this.changed.fire();
  }

  /** The webview state may carry the panel id; otherwise panels are matched in the order they were open. */
  private claimRestoredId(state: unknown): string | undefined {
    const remembered = this.context.workspaceState.get<unknown[]>(OPEN_PANELS_KEY, []);
    return restoredChatId(state, new Set(this.all.map((p) => p.id)), Array.isArray(remembered) ? remembered : []);
  }

  /** The editor tabs' chats, for the serializer (the view remembers its own: chat-view.ts). */
  private rememberOpenPanels(): void {
    void this.context.workspaceState.update(
      OPEN_PANELS_KEY,
      this.editorChats.map((p) => p.id),
    );
  }

  dispose(): void {
    this.snapshots.dispose();
    for (const d of this.subscriptions.splice(0)) d.dispose();
  }
}
