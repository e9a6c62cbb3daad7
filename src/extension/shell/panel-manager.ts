// Tracks the open chat panels: which one is active, creating new ones, reviving them after a
// window reload (WebviewPanelSerializer), and the `statefulChat.streaming` context key.

import * as vscode from "vscode";
import { ChatPanel, CHAT_VIEW_TYPE, type PanelDeps } from "./chat-panel";
import { join } from "node:path";
import { SnapshotStore } from "../snapshots/snapshot-store";
import type { EngineRegistry } from "./engine-registry";
import { PanelSnapshots } from "./panel-snapshots";
import { readSnapshotBudgetBytes } from "./settings";
import type { SavedTranscript, TranscriptStore } from "./transcript-store";

const OPEN_PANELS_KEY = "statefulChat.openPanels";

export class PanelManager implements vscode.Disposable {
  private readonly panels = new Set<ChatPanel>();
  /** Chats being closed as a window reload closes them: their snapshots stay. */
  private readonly closingForReload = new Set<string>();
  private lastActive: ChatPanel | undefined;
  private lastTextEditor: vscode.TextEditor | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** KV snapshots of the chats, under the extension's global storage. */
  readonly snapshots: PanelSnapshots;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly registry: EngineRegistry,
    private readonly store: TranscriptStore,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.lastTextEditor = vscode.window.activeTextEditor;
    this.snapshots = new PanelSnapshots(new SnapshotStore(join(context.globalStorageUri.fsPath, "kv-snapshots"), readSnapshotBudgetBytes), log);
    this.subscriptions.push(
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        if (editor) this.lastTextEditor = editor;
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration("statefulChat")) for (const panel of this.panels) panel.applySettings();
      }),
      vscode.window.registerWebviewPanelSerializer(CHAT_VIEW_TYPE, {
        deserializeWebviewPanel: async (panel, state: unknown) => {
          const id = this.claimRestoredId(state);
          this.track(await ChatPanel.revive(panel, id, this.deps()));
        },
      }),
    );
  }

  get all(): readonly ChatPanel[] {
    return [...this.panels];
  }

  get active(): ChatPanel | undefined {
    return this.all.find((p) => p.active) ?? (this.lastActive && this.panels.has(this.lastActive) ? this.lastActive : undefined);
  }

  create(): ChatPanel {
    return this.track(ChatPanel.create(this.deps()));
  }

  /** Opens a chat again by id, the way the serializer revives it after a window reload (tests use it). */
  async reopen(id: string): Promise<ChatPanel> {
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, "Stateful Chat", vscode.ViewColumn.Active);
    return this.track(await ChatPanel.revive(panel, id, this.deps()));
  }

  /** Closes a chat as a window reload does (the host's shutdown keeps its snapshot); tests use it. */
  closeForReload(panel: ChatPanel): void {
    this.closingForReload.add(panel.id);
    panel.panel.dispose();
  }

  async openTranscript(saved: SavedTranscript): Promise<ChatPanel> {
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, saved.title, vscode.ViewColumn.Active);
    return this.track(await ChatPanel.revive(panel, undefined, this.deps(), saved));
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
        this.panels.delete(panel);
        if (!this.closingForReload.delete(panel.id)) this.snapshots.forgetLater(panel.id);
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
  }

  /** The webview state may carry the panel id; otherwise panels are matched in the order they were open. */
  private claimRestoredId(state: unknown): string | undefined {
    const fromState = (state as { panelId?: unknown } | undefined)?.panelId;
    const taken = new Set(this.all.map((p) => p.id));
    if (typeof fromState === "string" && !taken.has(fromState)) return fromState;
    const remembered = this.context.workspaceState.get<string[]>(OPEN_PANELS_KEY, []);
    return remembered.find((id) => !taken.has(id));
  }

  private rememberOpenPanels(): void {
    void this.context.workspaceState.update(
      OPEN_PANELS_KEY,
      this.all.map((p) => p.id),
    );
  }

  dispose(): void {
    this.snapshots.dispose();
    for (const d of this.subscriptions.splice(0)) d.dispose();
  }
}
