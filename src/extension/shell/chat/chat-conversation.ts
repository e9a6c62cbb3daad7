// A chat panel's session lifecycle: the engine lease, the Conversation opened on it (restored
// from the panel's KV snapshot or its transcript), and closing both (chats/lease-slot.ts: a panel
// closed while its session opens gives both back).

import type * as vscode from "vscode";
import type { ServerStatus } from "../../core/server-status";
import { Conversation } from "../../core/conversation";
import type { ChatMessage } from "../../core/chat-template";
import type { SavedContextItem } from "../../core/context-delta";
import { DisposedError, toStatefulChatError, type StatefulChatError } from "../../core/errors";
import type { ModelView } from "../../../webview/protocol/messages";
import type { EngineLease, EngineRegistry } from "../engines/engine-registry";
import { existingDefaultModel, resolveModelPath } from "../models/model-location";
import { modelKeyOf } from "../settings/engine-settings";
import type { PanelSnapshots } from "./panel-snapshots";
import { modelView } from "../../chats/chat-views";
import { readSettings, type ChatSettings } from "../settings/settings";
import { LeaseSlot, type SlotOpening } from "../../chats/lease-slot";

export interface ChatConversationDeps {
  readonly panelId: string;
  readonly context: vscode.ExtensionContext;
  readonly registry: EngineRegistry;
  readonly snapshots: PanelSnapshots;
  readonly isDisposed: () => boolean;
  /** The conversation to restore the new session with (from the transcript). */
  readonly conversation: () => readonly ChatMessage[];
  /** The workspace context the restored session's cache holds (from its snapshot). */
  readonly restoredContext: (items: readonly SavedContextItem[]) => void;
  readonly onLoading: () => void;
  readonly onReady: (model: ModelView, notice: string | undefined) => void;
  readonly onFailed: (error: StatefulChatError) => void;
  readonly onServerStatus: (status: ServerStatus) => void;
  /** The name the user knows a model file by (an Ollama model's file is named by its digest). */
  readonly modelLabel?: (modelPath: string) => string | undefined;
}

export class ChatConversation {
  private readonly slot: LeaseSlot<EngineLease, Conversation>;
  private view: ModelView | undefined;
  /** Which model settings the current session was opened with. */
  private modelKey = "";

  constructor(private readonly deps: ChatConversationDeps) {
    this.slot = new LeaseSlot(deps.isDisposed);
    // A chat opened again (reopened after a reload or by id) keeps its snapshot.
    void deps.snapshots.claim(deps.panelId);
  }

  get conversation(): Conversation | undefined {
    return this.slot.session;
  }

  get model(): ModelView | undefined {
    return this.view;
  }

  /** A session is being opened and is not ready yet. */
  get loading(): boolean {
    return this.slot.opened && this.view === undefined;
  }

  /** The model settings changed since this session was opened (a reset switches to them). */
  get outdated(): boolean {
    return this.slot.session !== undefined && this.modelKey !== modelKeyOf(readSettings());
  }

  ensure(): Promise<Conversation> {
    return this.slot.ensure(() => this.opening());
  }

  /** Stop while the model loads: this chat stops waiting (the load stops too when no other chat waits for it). */
  cancelOpening(): void {
    this.slot.cancelOpening();
  }

  /** Closes the session; one still opening is aborted, disposes what it made and releases its lease. */
  async close(): Promise<void> {
    this.view = undefined;
    await this.slot.close();
  }

  private opening(): SlotOpening<EngineLease, Conversation> {
    // Read inside acquire's try: a setting that cannot be read fails this open with a banner
    // instead of leaving the panel on "Loading model…".
    let settings: ChatSettings | undefined;
    const fail = (error: unknown, signal: AbortSignal): never => {
      // Closed while opening (the panel, or a reset switching model): nothing to tell it.
      if (signal.reason instanceof DisposedError) throw signal.reason;
      const typed = toStatefulChatError(error);
      if (typed.code !== "disposed") this.deps.onFailed(typed);
      throw typed;
    };
    return {
      acquire: async (signal) => {
        this.deps.onLoading();
        try {
          settings = readSettings();
          this.modelKey = modelKeyOf(settings);
          const modelPath = await resolveModelPath(this.deps.context, settings.modelPath, signal);
          return await this.deps.registry.acquire(modelPath, settings, existingDefaultModel(this.deps.context), signal);
        } catch (error) {
          return fail(error, signal);
        }
      },
      open: async (lease, signal) => {
        // An engine on a server (remote) tells this panel what its turns wait for (a busy server, queued on it).
        const loaded = lease.loaded.engine;
        const engine = loaded.withServerStatus?.(this.deps.onServerStatus) ?? loaded;
        // acquire ran first and set it.
        const session = await Conversation.create(engine, { turn: settings!.turn }).catch((error: unknown) => fail(error, signal));
        try {
          const messages = this.deps.conversation();
          if (messages.length > 0) this.deps.restoredContext(await this.deps.snapshots.restore(this.deps.panelId, session, messages));
          return session;
        } catch (error) {
          await session.dispose();
          return fail(error, signal);
        }
      },
      ready: (conversation, lease) => {
        this.view = modelView(conversation, lease.loaded.notice, this.deps.modelLabel?.(conversation.engine.info.modelPath));
        this.deps.onReady(this.view, lease.loaded.notice);
      },
    };
  }
}
