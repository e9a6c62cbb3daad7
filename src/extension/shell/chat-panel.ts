// One chat panel = one webview + one ChatSession (its own KV state and queue) on a shared
// engine. The panel keeps the transcript (what the user sees), saves it after every change
// and maps core errors to banners.

import { randomUUID } from "node:crypto";
import * as vscode from "vscode";
import { ChatSession } from "../core/chat-session";
import { PanelContext } from "./panel-context";
import { sharedWorkspaceFiles } from "./context/workspace-files";
import { CancelledError, DisposedError, toStatefulChatError } from "../core/errors";
import type { OverflowEvent, TurnStats } from "../core/stats";
import {
  MAX_MESSAGE_CHARS,
  parseWebviewMessage,
  type BannerAction,
  type EntryStatus,
  type HostToWebview,
  type ModelView,
  type TranscriptEntry,
  type TurnStatsView,
  type WebviewToHost,
} from "../../webview/protocol";
import { Disposable } from "./disposable";
import { bannerActionsFor, marksMessageNotSent } from "./error-actions";
import { crashNotice, lastFailedMessage, modelKeyOf, safePreview } from "./panel-helpers";
import type { EngineLease, EngineRegistry } from "./engine-registry";
import type { PanelSnapshots } from "./panel-snapshots";
import { existingDefaultModel, resolveModelPath } from "./model-location";
import { readSettings } from "./settings";
import { conversationOf } from "./conversation-of";
import { titleOf, type SavedTranscript, type TranscriptStore } from "./transcript-store";
import { renderWebviewHtml, webviewOptions } from "./webview-html";
import { modelView, statsView } from "./panel-views";
import { TokenCoalescer } from "./token-coalescer";

export const CHAT_VIEW_TYPE = "statefulChat.chat";

export interface PanelDeps {
  readonly context: vscode.ExtensionContext;
  readonly registry: EngineRegistry;
  readonly snapshots: PanelSnapshots;
  readonly store: TranscriptStore;
  readonly log: vscode.LogOutputChannel;
  readonly lastTextEditor: () => vscode.TextEditor | undefined;
  readonly onDidDispose: (panel: ChatPanel) => void;
  readonly onDidChangeState: () => void;
}

type MutableEntry = { -readonly [K in keyof TranscriptEntry]: TranscriptEntry[K] };

export class ChatPanel extends Disposable {
  private entries: MutableEntry[] = [];
  private createdAt = new Date().toISOString();
  private lease: EngineLease | undefined;
  private sessionPromise: Promise<ChatSession> | undefined;
  private session: ChatSession | undefined;
  private model: ModelView | undefined;
  private outstanding = 0;
  private lastStats: TurnStats | undefined;
  private readonly context: PanelContext;
  private readonly tokens = new TokenCoalescer((id, text) => {
    if (!this.isDisposed) void this.panel.webview.postMessage({ type: "tokens", id, text } satisfies HostToWebview).then(undefined, () => undefined);
  });
  /** Which model settings the current session was opened with. */
  private modelKey = "";
  /** The last banner shown (the testing API reads it; users see it in the webview). */
  lastBanner: { level: string; message: string; actions: readonly BannerAction[] } | undefined;
  /** Malformed webview messages ignored so far. */
  ignoredMessages = 0;

  private constructor(
    readonly id: string,
    readonly panel: vscode.WebviewPanel,
    private readonly deps: PanelDeps,
  ) {
    super();
    panel.webview.options = webviewOptions(deps.context.extensionUri);
    panel.webview.html = renderWebviewHtml(panel.webview, deps.context.extensionUri);
    this.context = this.own(new PanelContext({
      panel,
      files: sharedWorkspaceFiles(),
      editor: deps.lastTextEditor,
      tokenizer: () => this.session?.engine.tokenizer,
      post: (message) => this.post(message),
      warn: (message) => deps.log.warn(message),
    }));
    this.own(panel.webview.onDidReceiveMessage((raw: unknown) => this.onMessage(raw)));
    this.own(panel.onDidChangeViewState(() => deps.onDidChangeState()));
    this.own(panel.onDidDispose(() => this.dispose()));
  }

  static create(deps: PanelDeps): ChatPanel {
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, "Stateful Chat", vscode.ViewColumn.Active, {
      ...webviewOptions(deps.context.extensionUri),
    });
    const chat = new ChatPanel(randomUUID(), panel, deps);
    void chat.ensureSession().catch(() => undefined);
    return chat;
  }

  static async revive(panel: vscode.WebviewPanel, id: string | undefined, deps: PanelDeps, seed?: SavedTranscript): Promise<ChatPanel> {
    const saved = seed ?? (id ? await deps.store.load(id) : undefined);
    const chat = new ChatPanel(seed ? randomUUID() : (id ?? randomUUID()), panel, deps);
    if (saved) {
      chat.entries = saved.entries.map((e) => ({ ...e, status: e.status === "streaming" ? "stopped" : e.status }));
      chat.createdAt = saved.createdAt;
      panel.title = titleOf(chat.entries);
    }
    void chat.ensureSession().catch(() => undefined);
    return chat;
  }

  get active(): boolean {
    return this.panel.active;
  }

  get busy(): boolean {
    return this.outstanding > 0;
  }

  get transcript(): readonly TranscriptEntry[] {
    return this.entries;
  }

  get stats(): { position: number; capacity: number; ledgerLength: number; lastTurn?: TurnStats; model?: ModelView } {
    return {
      position: this.session?.position ?? 0,
      capacity: this.session?.capacity ?? 0,
      ledgerLength: this.session?.ledger.length ?? 0,
      lastTurn: this.lastStats,
      model: this.model,
    };
  }

  reveal(): void {
    this.panel.reveal();
  }

  /** What the next message will carry: chips, mentions, pins (context commands use it). */
  get composerContext(): PanelContext {
    return this.context;
  }

  /**
   * Sends a message as if typed in the panel; resolves with the turn's stats (for commands and tests).
   * `context`: the ids of the composer chips the user sent it with (all current context when absent).
   */
  async send(text: string, context?: readonly string[]): Promise<TurnStats | undefined> {
    if (text.length > MAX_MESSAGE_CHARS) {
      this.banner("error", `The message is ${text.length.toLocaleString()} characters; the limit is ${MAX_MESSAGE_CHARS.toLocaleString()}.`);
      return undefined;
    }
    const user = this.addEntry({ role: "user", text, status: "complete" });
    this.setBusy(+1);
    try {
      const session = await this.ensureSession();
      const input = await this.context.attach(text, session.engine.tokenizer, (chips) => {
        user.chips = chips;
        this.post({ type: "entry", entry: user });
      }, context);
      let reply: MutableEntry | undefined;
      const stats = await session.send(
        input.turn,
        {
          onStart: () => {
            reply = this.addEntry({ role: "assistant", text: "", status: "streaming" });
          },
          onText: (chunk) => {
            if (!reply) return;
            reply.text += chunk;
            if (this.panel.visible) this.tokens.queue(reply.id, chunk);
          },
          onOverflow: (event) => this.noteOverflow(event),
        },
      );
      this.lastStats = stats;
      input.commit();
      this.deps.snapshots.saveAfterTurn(this.id, session);
      if (reply) this.finishEntry(reply, stats.stopReason === "cancelled" ? "stopped" : "complete", statsView(stats));
      return stats;
    } catch (error) {
      this.failTurn(user, error);
      return undefined;
    } finally {
      this.setBusy(-1);
      this.save();
    }
  }

  stop(): void {
    this.session?.stop();
  }

  /** Retry (after an engine crash): send the last message again; the conversation before it is intact. */
  async retry(): Promise<TurnStats | undefined> {
    const text = lastFailedMessage(this.entries);
    return text === undefined || this.busy ? undefined : this.send(text);
  }

  async reset(): Promise<void> {
    await this.deps.store.archive(this.snapshot()).catch((e: unknown) => this.deps.log.warn(`archive failed: ${String(e)}`));
    this.entries = [];
    this.post({ type: "cleared" });
    this.panel.title = "Stateful Chat";
    this.save();
    this.context.clear();
    this.deps.snapshots.forget(this.id);
    if (this.session && this.modelKey !== modelKeyOf(readSettings())) {
      // The model setting changed since this panel loaded its model: switch on reset.
      await this.closeSession();
      void this.ensureSession().catch(() => undefined);
    } else if (this.session) {
      await this.session.reset();
    }
  }

  private async ensureSession(): Promise<ChatSession> {
    this.sessionPromise ??= this.openSession().catch((error: unknown) => {
      this.sessionPromise = undefined;
      throw error;
    });
    return this.sessionPromise;
  }

  /** Settings changed: new turn options apply to the next turn of this conversation. */
  applySettings(): void {
    this.session?.setOptions(readSettings().turn);
  }

  private async closeSession(): Promise<void> {
    const session = this.session;
    const lease = this.lease;
    this.session = undefined;
    this.lease = undefined;
    this.sessionPromise = undefined;
    this.model = undefined;
    await session?.dispose();
    lease?.release();
  }

  private async openSession(): Promise<ChatSession> {
    const settings = readSettings();
    this.modelKey = modelKeyOf(settings);
    this.post({ type: "model", state: "loading" });
    try {
      const modelPath = await resolveModelPath(this.deps.context, settings.modelPath);
      const lease = await this.deps.registry.acquire(modelPath, settings, existingDefaultModel(this.deps.context));
      if (this.isDisposed) {
        lease.release();
        throw new DisposedError("Chat panel");
      }
      this.lease = lease;
      const session = await ChatSession.create(lease.loaded.engine, { turn: settings.turn });
      const messages = conversationOf(this.entries);
      if (messages.length > 0) await this.deps.snapshots.resume(this.id, session, messages);
      this.session = session;
      this.model = modelView(session, lease.loaded.notice);
      this.post({ type: "model", state: "ready", model: this.model });
      this.context.scheduleRefresh();
      if (lease.loaded.notice) this.banner("warning", lease.loaded.notice);
      return session;
    } catch (error) {
      const typed = toStatefulChatError(error);
      if (typed.code !== "disposed") {
        this.post({ type: "model", state: "error", message: typed.message });
        this.banner("error", typed.message, bannerActionsFor(typed));
      }
      throw typed;
    }
  }

  /** Entry point for every message from the webview (public so tests can feed it raw input). */
  onMessage(raw: unknown): void {
    const message = parseWebviewMessage(raw);
    if (!message) {
      this.ignoredMessages++;
      this.deps.log.warn(`Ignored a malformed message from the chat webview: ${safePreview(raw)}`);
      return;
    }
    void this.handle(message).catch((error: unknown) => this.deps.log.error(`Handling ${message.type} failed: ${String(error)}`));
  }

  private async handle(message: WebviewToHost): Promise<void> {
    switch (message.type) {
      case "ready":
        this.post({ type: "init", transcript: this.entries, busy: this.busy, model: this.model, panelId: this.id });
        if (!this.model && this.sessionPromise) this.post({ type: "model", state: "loading" });
        this.context.scheduleRefresh();
        return;
      case "send":
        await this.send(message.text, message.context);
        return;
      case "removeChip":
      case "pinChip":
      case "setActiveFile":
      case "mentionQuery":
      case "addMention":
        await this.context.handle(message);
        return;
      case "stop":
        this.stop();
        return;
      case "reset":
        await this.reset();
        return;
      case "copyCode":
        await vscode.env.clipboard.writeText(message.code);
        return;
      case "insertCode":
        await this.insertAtCursor(message.code);
        return;
      case "runCommand":
        await vscode.commands.executeCommand(message.command);
        return;
      case "openLink":
        await vscode.env.openExternal(vscode.Uri.parse(message.url, true));
        return;
    }
  }

  private async insertAtCursor(code: string): Promise<void> {
    const editor = this.deps.lastTextEditor();
    if (!editor) {
      void vscode.window.showInformationMessage("Open a text editor to insert the code into.");
      return;
    }
    await editor.edit((edit) => {
      for (const selection of editor.selections) edit.replace(selection, code);
    });
  }

  private addEntry(entry: Omit<MutableEntry, "id">): MutableEntry {
    const full: MutableEntry = { id: randomUUID(), ...entry };
    this.entries.push(full);
    if (full.role === "user" && this.entries.filter((e) => e.role === "user").length === 1) {
      this.panel.title = titleOf(this.entries);
    }
    this.post({ type: "entry", entry: full });
    this.save();
    return full;
  }

  private finishEntry(entry: MutableEntry, status: EntryStatus, stats?: TurnStatsView): void {
    entry.status = status;
    if (stats) entry.stats = stats;
    this.post({ type: "entryDone", id: entry.id, status, text: entry.text, stats });
  }

  private failTurn(user: MutableEntry, error: unknown): void {
    const typed = toStatefulChatError(error);
    const streaming = this.entries.find((e) => e.status === "streaming");
    if (typed instanceof CancelledError || typed.code === "cancelled") {
      // Stopped before the reply began: the model never read the message.
      if (streaming && !streaming.text) this.removeEntry(streaming);
      this.finishEntry(user, "not-sent");
      return;
    }
    if (typed.code === "disposed") return;
    if (streaming) {
      if (!streaming.text) streaming.text = typed.message;
      this.finishEntry(streaming, "error");
    }
    const notice = crashNotice(typed);
    if (notice) this.addEntry({ role: "notice", text: notice, status: "complete" });
    if (marksMessageNotSent(typed)) {
      this.finishEntry(user, "not-sent");
    }
    this.banner("error", typed.message, bannerActionsFor(typed));
  }

  private removeEntry(entry: MutableEntry): void {
    this.entries = this.entries.filter((e) => e !== entry);
    this.post({ type: "init", transcript: this.entries, busy: this.busy, model: this.model, panelId: this.id });
  }

  private noteOverflow(event: OverflowEvent): void {
    const how = event.strategy === "summarize" ? "summarized" : "truncated";
    this.addEntry({
      role: "notice",
      text: `Conversation ${how} to fit the context: freed ${event.tokensFreed} tokens (${event.positionBefore} → ${event.positionAfter}).`,
      status: "complete",
    });
  }

  private banner(level: "error" | "warning" | "info", message: string, actions: readonly BannerAction[] = []): void {
    this.lastBanner = { level, message, actions };
    this.post({ type: "banner", level, message, actions });
  }

  private setBusy(delta: number): void {
    this.outstanding += delta;
    this.post({ type: "busy", busy: this.outstanding > 0, queued: Math.max(0, this.outstanding - 1) });
    this.deps.onDidChangeState();
  }

  private post(message: HostToWebview): void {
    if (this.isDisposed) return;
    this.tokens.flush();
    void this.panel.webview.postMessage(message).then(undefined, () => undefined);
  }

  private snapshot(): SavedTranscript {
    return {
      version: 1,
      id: this.id,
      title: titleOf(this.entries),
      createdAt: this.createdAt,
      updatedAt: new Date().toISOString(),
      modelPath: this.model?.name,
      entries: this.entries.map((e) => ({ ...e })),
    };
  }

  private save(): void {
    void this.deps.store.save(this.snapshot()).catch((e: unknown) => this.deps.log.error(`Saving the transcript failed: ${String(e)}`));
  }

  protected override onDispose(): void {
    this.tokens.dispose();
    this.save();
    void this.deps.store.archive(this.snapshot()).catch(() => undefined);
    void this.closeSession();
    this.deps.onDidDispose(this);
  }
}
