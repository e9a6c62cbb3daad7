// A chat panel's session lifecycle: the engine lease, the ChatSession opened on it (resumed
// from the panel's KV snapshot or its transcript), and closing both. Opening happens once
// however many callers ask; a failed open is retried by the next caller.

import type * as vscode from "vscode";
import { withServerStatus } from "../backends/remote/remote-engine";
import type { ServerStatus } from "../backends/remote/status";
import { ChatSession } from "../core/chat-session";
import type { ChatMessage } from "../core/chat-template";
import { DisposedError, toStatefulChatError, type StatefulChatError } from "../core/errors";
import type { ModelView } from "../../webview/protocol/messages";
import type { EngineLease, EngineRegistry } from "./engine-registry";
import { existingDefaultModel, resolveModelPath } from "./model-location";
import { modelKeyOf } from "./panel-helpers";
import type { PanelSnapshots } from "./panel-snapshots";
import { modelView } from "./panel-views";
import { readSettings } from "./settings";

export interface PanelSessionDeps {
  readonly panelId: string;
  readonly context: vscode.ExtensionContext;
  readonly registry: EngineRegistry;
  readonly snapshots: PanelSnapshots;
  readonly isDisposed: () => boolean;
  /** The conversation to resume the new session with (from the transcript). */
  readonly conversation: () => readonly ChatMessage[];
  readonly onLoading: () => void;
  readonly onReady: (model: ModelView, notice: string | undefined) => void;
  readonly onFailed: (error: StatefulChatError) => void;
  readonly onServerStatus: (status: ServerStatus) => void;
}

export class PanelSession {
  private lease: EngineLease | undefined;
  private opening: Promise<ChatSession> | undefined;
  private current: ChatSession | undefined;
  private view: ModelView | undefined;
  /** Which model settings the current session was opened with. */
  private modelKey = "";

  constructor(private readonly deps: PanelSessionDeps) {}

  get session(): ChatSession | undefined {
    return this.current;
  }

  get model(): ModelView | undefined {
    return this.view;
  }

  /** A session is being opened and is not ready yet. */
  get loading(): boolean {
    return this.opening !== undefined && this.view === undefined;
  }

  /** The model settings changed since this session was opened (a reset switches to them). */
  get outdated(): boolean {
    return this.current !== undefined && this.modelKey !== modelKeyOf(readSettings());
  }

  ensure(): Promise<ChatSession> {
    this.opening ??= this.open().catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }

  async close(): Promise<void> {
    const session = this.current;
    const lease = this.lease;
    this.current = undefined;
    this.lease = undefined;
    this.opening = undefined;
    this.view = undefined;
    await session?.dispose();
    lease?.release();
  }

  private async open(): Promise<ChatSession> {
    const settings = readSettings();
    this.modelKey = modelKeyOf(settings);
    this.deps.onLoading();
    try {
      const modelPath = await resolveModelPath(this.deps.context, settings.modelPath);
      const lease = await this.deps.registry.acquire(modelPath, settings, existingDefaultModel(this.deps.context));
      if (this.deps.isDisposed()) {
        lease.release();
        throw new DisposedError("Chat panel");
      }
      this.lease = lease;
      // A remote engine tells this panel what its turns wait for (a busy server, queued on it).
      const engine = withServerStatus(lease.loaded.engine, this.deps.onServerStatus);
      const session = await ChatSession.create(engine, { turn: settings.turn });
      const messages = this.deps.conversation();
      if (messages.length > 0) await this.deps.snapshots.resume(this.deps.panelId, session, messages);
      this.current = session;
      this.view = modelView(session, lease.loaded.notice);
      this.deps.onReady(this.view, lease.loaded.notice);
      return session;
    } catch (error) {
      const typed = toStatefulChatError(error);
      if (typed.code !== "disposed") this.deps.onFailed(typed);
      throw typed;
    }
  }
}
