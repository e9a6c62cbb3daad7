// One chat panel = one webview + one Conversation (its own KV state and queue) on a shared
// engine. The webview is an editor tab or the side bar view (chat-surface.ts): the chat is the
// same in both. The panel ties three parts together: the conversation's lifecycle (chat-conversation.ts),
// the transcript the user sees (chats/chat-transcript.ts) and the webview's messages
// (panel-dispatch.ts); it runs a turn from one to the other. What it tells the user besides the
// conversation (banners, load state, failed turns) is panel-notices.ts.

import { randomUUID } from "node:crypto";
import * as vscode from "vscode";
import { PanelContext } from "./panel-context";
import { sharedWorkspaceFiles } from "../context/workspace-files";
import type { TurnStats } from "../../core/stats";
import type { CacheCheck } from "../../core/cache-check";
import type { EnginePlacement } from "../../core/engine";
import {
  MAX_MESSAGE_CHARS,
  parseWebviewMessage,
  type HostToWebview,
  type ModelView,
  type TranscriptEntry,
} from "../../../webview/protocol/messages";
import { Disposable } from "./disposable";
import { lastFailedMessage, safePreview } from "./panel-helpers";
import type { EngineRegistry } from "../engines/engine-registry";
import type { PanelSnapshots } from "./panel-snapshots";
import { readSettings } from "../settings/settings";
import { conversationOf } from "../../chats/conversation-of";
import { damagedTranscriptNotice } from "../../chats/damaged-transcript";
import type { SavedTranscript, TranscriptStore } from "../../chats/transcript-store";
import { composerChoicesOf } from "../../chats/saved-transcript";
import { renderWebviewHtml, webviewOptions } from "./webview-html";
import { statsView } from "../../chats/chat-views";
import { TokenCoalescer } from "../../chats/token-coalescer";
import type { ApplyPort } from "../apply/apply-chat";
import { PanelTranscript, type MutableEntry } from "../../chats/chat-transcript";
import { ChatConversation } from "./chat-conversation";
import { PanelNotices } from "./panel-notices";
import { dispatchWebviewMessage } from "./panel-dispatch";
import { editorSurface, MovableSurface, type ChatSurface } from "./chat-surface";
import { lastUnsentMessage } from "../../chats/retry-target";
import { modelLabelOf } from "../models/model-labels";

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

/** A chat as the status bar shows it. */
export interface ChatStatus {
  readonly state: "idle" | "loading" | "generating" | "ready" | "failed";
  readonly model?: { readonly name: string; readonly backend: string; readonly placement?: EnginePlacement };
  readonly position: number;
  readonly capacity: number;
}

export class ChatPanel extends Disposable {
  private outstanding = 0;
  /** Where the chat is shown now (an editor tab or the side bar view); it may move. */
  readonly surface: MovableSurface;
  private messages: { dispose(): void } | undefined;
  private lastStats: TurnStats | undefined;
  private readonly context: PanelContext;
  private readonly history: PanelTranscript;
  private readonly lifecycle: ChatConversation;
  private readonly tokens = new TokenCoalescer((id, text) => {
    if (!this.isDisposed) void this.surface.webview.postMessage({ type: "tokens", id, text } satisfies HostToWebview).then(undefined, () => undefined);
  });
  private readonly notices: PanelNotices;
  /** Malformed webview messages ignored so far. */
  ignoredMessages = 0;
  /** What Apply (shell/apply) needs of this chat: its replies, its model, its context, its webview. */
  readonly applyPort: ApplyPort;

  private constructor(
    readonly id: string,
    place: ChatSurface,
    private readonly deps: PanelDeps,
  ) {
    super();
    const surface = new MovableSurface(place);
    this.surface = surface;
    this.showOn(place);
    this.history = new PanelTranscript(id, {
      store: deps.store,
      post: (message) => this.post(message),
      setTitle: (title) => (surface.title = title),
      modelName: () => this.lifecycle.model?.name,
      resync: () => this.sendInit(),
      logError: (message) => deps.log.error(message),
      composer: () => this.context.choices.lasting(),
    });
    this.notices = new PanelNotices({ post: (message) => this.post(message), history: this.history, changed: () => deps.onDidChangeState() });
    this.lifecycle = new ChatConversation({
      panelId: id,
      context: deps.context,
      registry: deps.registry,
      snapshots: deps.snapshots,
      isDisposed: () => this.isDisposed,
      conversation: () => conversationOf(this.history.entries),
      restoredContext: (items) => this.context.restore(items),
      onLoading: () => this.notices.modelLoading(),
      onReady: (model, notice) => {
        this.notices.modelReady(model, notice);
        this.context.scheduleRefresh();
      },
      onFailed: (error) => this.notices.modelFailed(error),
      onServerStatus: (status) => this.notices.serverStatus(status),
      modelLabel: (path) => modelLabelOf(deps.context.globalState, path),
    });
    this.context = this.own(new PanelContext({
      surface,
      files: sharedWorkspaceFiles(),
      editor: deps.lastTextEditor,
      tokenizer: () => this.lifecycle.conversation?.engine.tokenizer,
      post: (message) => this.post(message),
      warn: (message) => deps.log.warn(message),
      onLastingChange: () => this.history.save(),
    }));
    this.applyPort = {
      panelId: id,
      transcript: () => this.history.entries,
      markers: () => this.lifecycle.conversation?.reasoningMarkers,
      engine: async () => (await this.lifecycle.ensure()).engine,
      seen: (path) => this.context.seenFile(path),
      noteApplied: (path) => this.context.noteApplied(path),
      post: (message) => this.post(message),
    };
    this.own({ dispose: () => this.messages?.dispose() });
    this.own(surface.onDidChangeViewState(() => deps.onDidChangeState()));
    this.own(surface.onDidClose(() => this.dispose()));
  }

  /** A new chat in a new editor tab. */
  static create(deps: PanelDeps): ChatPanel {
    const panel = vscode.window.createWebviewPanel(CHAT_VIEW_TYPE, "Stateful Chat", vscode.ViewColumn.Active, {
      ...webviewOptions(deps.context.extensionUri),
    });
    return ChatPanel.start(editorSurface(panel), deps);
  }

  /** A new chat on a surface (the side bar view). */
  static start(surface: ChatSurface, deps: PanelDeps): ChatPanel {
    const chat = new ChatPanel(randomUUID(), surface, deps);
    void chat.lifecycle.ensure().catch(() => undefined);
    return chat;
  }

  /** A saved chat on a surface: by id (its transcript and KV snapshot), or a history copy (`seed`, under a new id). */
  static async reopen(surface: ChatSurface, id: string | undefined, deps: PanelDeps, seed?: SavedTranscript): Promise<ChatPanel> {
    // `seed`: a history copy continues as a new chat (the copy in history stays as it was).
    const found = seed || !id ? undefined : await deps.store.read(id);
    const saved = seed ?? (found?.kind === "saved" ? found.transcript : undefined);
    const chat = new ChatPanel(seed ? randomUUID() : (id ?? randomUUID()), surface, deps);
    if (found?.kind === "damaged") {
      // Kept aside, not overwritten: the chat says so, and where the file is.
      deps.log.warn(`The transcript of chat ${id} could not be read; kept as ${found.keptAs}`);
      chat.history.add({ role: "notice", text: damagedTranscriptNotice(found.keptAs), status: "complete" });
    }
    if (saved) {
      chat.history.restore(saved);
      const composer = composerChoicesOf(saved);
      if (composer) chat.context.choices.restoreLasting(composer);
    }
    void chat.lifecycle.ensure().catch(() => undefined);
    return chat;
  }

  /** The last banner shown (the testing API reads it; users see it in the webview). */
  get lastBanner(): PanelNotices["lastBanner"] {
    return this.notices.lastBanner;
  }

  get active(): boolean {
    return this.surface.active;
  }

  get title(): string {
    return this.surface.title;
  }

  /** Closes the chat where it is shown (an editor tab closes; the side bar view is handed on). */
  close(): void {
    this.surface.close();
  }

  /** Open Chat in Editor: the same chat (session, KV cache, transcript) continues on `place`; the old place is let go. */
  moveTo(place: ChatSurface): void {
    if (this.isDisposed) return;
    this.surface.moveTo(place);
    this.showOn(place);
  }

  /** Loads the chat's webview on `place`; the webview asks for the whole state when it is ready. */
  private showOn(place: ChatSurface): void {
    this.messages?.dispose();
    place.webview.options = webviewOptions(this.deps.context.extensionUri);
    place.webview.html = renderWebviewHtml(place.webview, this.deps.context.extensionUri);
    this.messages = place.webview.onDidReceiveMessage((raw: unknown) => this.onMessage(raw));
  }

  /** What the status bar shows of this chat: its model, where it runs, how full its context is. */
  get status(): ChatStatus {
    const conversation = this.lifecycle.conversation;
    const info = conversation?.engine.info;
    return {
      state: this.lifecycle.loading ? "loading" : this.busy ? "generating" : conversation ? "ready" : this.notices.loadFailed ? "failed" : "idle",
      model: info ? { name: modelLabelOf(this.deps.context.globalState, info.modelPath) ?? info.modelName, backend: info.backend, placement: info.placement } : undefined,
      position: conversation?.position ?? 0,
      capacity: conversation?.capacity ?? 0,
    };
  }

  get busy(): boolean {
    return this.outstanding > 0;
  }

  get transcript(): readonly TranscriptEntry[] {
    return this.history.entries;
  }

  get stats(): { position: number; capacity: number; ledgerLength: number; lastTurn?: TurnStats; model?: ModelView } {
    const conversation = this.lifecycle.conversation;
    return {
      position: conversation?.position ?? 0,
      capacity: conversation?.capacity ?? 0,
      ledgerLength: conversation?.ledger.length ?? 0,
      lastTurn: this.lastStats,
      model: this.lifecycle.model,
    };
  }

  /** Ledger == cache by the engine's own count, queued behind the session's turns (tests, diagnostics). */
  probeCache(): Promise<CacheCheck | undefined> {
    return this.lifecycle.conversation?.probeCache() ?? Promise.resolve(undefined);
  }

  /** `preserveFocus`: show the chat but leave the keyboard where it is (Ask About Selection keeps the editor). */
  reveal(preserveFocus = false): void {
    this.surface.reveal(preserveFocus);
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
      this.notices.banner("error", `The message is ${text.length.toLocaleString()} characters; the limit is ${MAX_MESSAGE_CHARS.toLocaleString()}.`);
      return undefined;
    }
    const user = this.history.add({ role: "user", text, status: "complete" });
    this.setBusy(+1);
    try {
      const conversation = await this.lifecycle.ensure();
      const input = await this.context.attach(text, conversation.engine.tokenizer, (chips) => {
        user.chips = chips;
        this.history.update(user);
      }, context);
      let reply: MutableEntry | undefined;
      const stats = await conversation.send(input.turn, {
        onStart: () => {
          reply = this.history.add({ role: "assistant", text: "", status: "streaming" });
        },
        onText: (chunk) => {
          if (!reply) return;
          reply.text += chunk;
          if (this.surface.visible) this.tokens.queue(reply.id, chunk);
        },
        onOverflow: (event) => this.notices.overflow(event),
      });
      this.lastStats = stats;
      input.commit();
      this.deps.snapshots.saveAfterTurn(this.id, conversation, { turn: stats.turn, items: this.context.saved() });
      if (reply) this.history.finish(reply, stats.stopReason === "cancelled" ? "stopped" : "complete", statsView(stats));
      return stats;
    } catch (error) {
      this.notices.turnFailed(user, error);
      return undefined;
    } finally {
      this.setBusy(-1);
      this.history.save();
    }
  }

  stop(): void {
    this.lifecycle.conversation?.stop();
    // Stop while the model still loads (a fetch, a server's first answers): stop waiting for it.
    this.lifecycle.cancelOpening();
  }

  /**
   * Retry: after an engine crash or a lost server, send the last message again (the
   * conversation before it is intact); after a failed or cancelled model load, load again and
   * send the message the model never read.
   */
  async retry(): Promise<TurnStats | undefined> {
    if (this.busy) return undefined;
    const text = lastFailedMessage(this.history.entries);
    if (text !== undefined) return this.send(text);
    const unsent = lastUnsentMessage(this.history.entries);
    if (unsent) {
      const entry = this.history.entries.find((e) => e.id === unsent.id);
      if (entry) this.history.remove(entry);
      return this.send(unsent.text);
    }
    if (!this.lifecycle.conversation) {
      this.notices.loadFailed = false;
      await this.lifecycle.ensure().catch(() => undefined);
    }
    return undefined;
  }

  async reset(): Promise<void> {
    // First: the cleared transcript is saved without the pins the reset takes away.
    this.context.clear();
    await this.history.clear();
    void this.deps.snapshots.forget(this.id);
    if (this.lifecycle.outdated) {
      // The model setting changed since this panel loaded its model: switch on reset.
      await this.lifecycle.close();
      void this.lifecycle.ensure().catch(() => undefined);
    } else {
      await this.lifecycle.conversation?.reset();
    }
  }

  /**
   * Settings changed: new turn options apply to the next turn of this conversation. A chat
   * nobody has written in yet switches to a newly chosen model at once (a conversation in
   * progress keeps its model until Reset Conversation).
   */
  applySettings(): void {
    this.lifecycle.conversation?.setOptions(readSettings().turn);
    if (this.history.entries.length === 0 && !this.busy && this.lifecycle.outdated) {
      void this.lifecycle.close().then(() => {
        if (!this.isDisposed) void this.lifecycle.ensure().catch(() => undefined);
      });
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
    const target = {
      context: this.context,
      applyPort: this.applyPort,
      lastTextEditor: this.deps.lastTextEditor,
      sendInit: () => this.sendInit(),
      send: (text: string, context?: readonly string[]) => this.send(text, context),
      stop: () => this.stop(),
      reset: () => this.reset(),
    };
    void dispatchWebviewMessage(target, message).catch((error: unknown) => this.deps.log.error(`Handling ${message.type} failed: ${String(error)}`));
  }

  private sendInit(): void {
    this.post({ type: "init", transcript: this.history.entries, busy: this.busy, model: this.lifecycle.model, panelId: this.id });
    if (this.lifecycle.loading) this.post({ type: "model", state: "loading" });
  }

  private setBusy(delta: number): void {
    this.outstanding += delta;
    this.post({ type: "busy", busy: this.outstanding > 0, queued: Math.max(0, this.outstanding - 1) });
    this.deps.onDidChangeState();
  }

  private post(message: HostToWebview): void {
    if (this.isDisposed) return;
    this.tokens.flush();
    void this.surface.webview.postMessage(message).then(undefined, () => undefined);
  }

  protected override onDispose(): void {
    this.tokens.dispose();
    this.history.save();
    void this.history.archive();
    void this.lifecycle.close();
    this.deps.onDidDispose(this);
  }
}
