// A chat panel's KV snapshot: saved in the background after each completed turn, used to
// resume a revived chat (window reload, VS Code restart) instead of re-prefilling it, and
// deleted by Reset Conversation or when the chat is closed for good.

import type * as vscode from "vscode";
import type { ChatSession } from "../core/chat-session";
import type { ChatMessage } from "../core/chat-template";
import type { RestoreOutcome, SnapshotStore } from "../snapshots/snapshot-store";

/**
 * How long a closed chat's snapshot is kept before it is deleted. A window reload also
 * disposes panels, but then the extension host shuts down (and cancels the deletion) well
 * within this time, so the revived chat still finds its snapshot.
 */
const DELETE_AFTER_CLOSE_MS = 3_000;

export class PanelSnapshots implements vscode.Disposable {
  private readonly pendingDeletes = new Map<string, NodeJS.Timeout>();
  /** The last restore per chat (the testing API reads it). */
  readonly outcomes = new Map<string, RestoreOutcome>();

  constructor(
    private readonly store: SnapshotStore,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Resume a revived chat from its snapshot when it matches; otherwise rebuild it from the transcript (re-prefilled on the next turn). */
  async resume(id: string, session: ChatSession, messages: readonly ChatMessage[]): Promise<void> {
    this.cancelDelete(id);
    const outcome = await this.store.restore(id, session, messages).catch((error: unknown): RestoreOutcome => ({ kind: "none", reason: String(error) }));
    this.outcomes.set(id, outcome);
    if (outcome.kind === "none") await session.restore(messages);
    this.log.info(
      outcome.kind === "snapshot"
        ? `Chat ${id}: KV cache restored from its snapshot (${outcome.tokens} tokens)`
        : `Chat ${id}: no usable KV snapshot (${outcome.reason}); the conversation is re-prefilled`,
    );
  }

  has(id: string): Promise<boolean> {
    return this.store.has(id);
  }

  /** After a completed turn: save in the background (queued behind the chat's next operation). */
  saveAfterTurn(id: string, session: ChatSession): void {
    void this.store.save(id, session).catch((error: unknown) => this.log.warn(`Saving the KV snapshot of chat ${id} failed: ${String(error)}`));
  }

  /** Reset Conversation: the snapshot no longer describes the chat. */
  forget(id: string): void {
    this.cancelDelete(id);
    void this.store.delete(id).catch(() => undefined);
  }

  /** The chat was closed: delete its snapshot unless the window is reloading (see DELETE_AFTER_CLOSE_MS). */
  forgetLater(id: string): void {
    this.cancelDelete(id);
    const timer = setTimeout(() => {
      this.pendingDeletes.delete(id);
      this.forget(id);
    }, DELETE_AFTER_CLOSE_MS);
    timer.unref();
    this.pendingDeletes.set(id, timer);
  }

  private cancelDelete(id: string): void {
    clearTimeout(this.pendingDeletes.get(id));
    this.pendingDeletes.delete(id);
  }

  /** Extension shutdown (a reload, a restart): keep every snapshot. */
  dispose(): void {
    for (const timer of this.pendingDeletes.values()) clearTimeout(timer);
    this.pendingDeletes.clear();
  }
}
