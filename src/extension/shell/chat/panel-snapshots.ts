// A chat panel's KV snapshot: saved in the background after each completed turn, used to
// restore a reopened chat (window reload, VS Code restart) instead of re-prefilling it, and
// deleted by Reset Conversation or when the chat is closed for good. A chat closed for good
// also gives up its open-chat transcript file (`onClosedForGood`): its conversation is in
// history already (archived when the panel closed), and nothing will reopen it.

import type * as vscode from "vscode";
import type { Conversation } from "../../core/conversation";
import type { ChatMessage } from "../../core/chat-template";
import type { SavedContextItem } from "../../core/context-delta";
import type { RestoreOutcome, SnapshotStore, TurnContext } from "../../snapshots/snapshot-store";

/**
 * How long a closed chat's snapshot is kept before it is deleted. A window reload also
 * disposes panels, but then the extension host shuts down (and cancels the deletion) well
 * within this time, so the reopened chat still finds its snapshot.
 */
const DELETE_AFTER_CLOSE_MS = 3_000;

/**
 * A chat closed less than DELETE_AFTER_CLOSE_MS before the window reloaded cannot be told
 * from one the reload closed: both leave a tombstone on disk, and a chat that is opened again
 * removes its own. VS Code reopens a panel only when it is first shown, so a tombstone is
 * acted on only once it is this old: then the snapshot is deleted (the transcript remains;
 * a chat reopened later re-prefills).
 */
export const CLOSED_SNAPSHOT_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

type Log = Pick<vscode.LogOutputChannel, "info" | "warn">;

export interface PanelSnapshotsClock {
  now(): number;
  setTimeout(run: () => void, ms: number): { unref?(): void };
  clearTimeout(timer: unknown): void;
}

const realClock: PanelSnapshotsClock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

export class PanelSnapshots implements vscode.Disposable {
  private readonly pendingDeletes = new Map<string, unknown>();
  /** The last restore per chat (the testing API reads it). */
  readonly outcomes = new Map<string, RestoreOutcome>();
  /** Old tombstones acted on at startup (tests wait for it). */
  readonly swept: Promise<string[]>;

  constructor(
    private readonly store: SnapshotStore,
    private readonly log: Log,
    private readonly clock: PanelSnapshotsClock = realClock,
    /** A chat is known to be closed for good (its grace period ended, or an old tombstone): drop its open-chat file. */
    private readonly onClosedForGood: (id: string) => Promise<void> = async () => undefined,
  ) {
    this.swept = store.deleteClosedBefore(clock.now() - CLOSED_SNAPSHOT_KEPT_MS).then(
      async (ids) => {
        if (ids.length > 0) log.info(`Deleted the KV snapshots of ${ids.length} chat(s) closed just before a window reload`);
        await Promise.all(ids.map((id) => this.closedForGood(id)));
        return ids;
      },
      (error: unknown) => {
        log.warn(`Looking for closed chats' KV snapshots failed: ${String(error)}`);
        return [];
      },
    );
  }

  /** A chat with this id is open (reopened after a reload or by id): its snapshot is no longer to be deleted. */
  claim(id: string): Promise<void> {
    this.cancelDelete(id);
    return this.store.unmarkClosed(id).catch(() => undefined);
  }

  /**
   * Restore a reopened chat from its snapshot when it matches; otherwise rebuild it from the
   * transcript (re-prefilled on the next turn). Resolves with the workspace context the restored
   * conversation holds: the snapshot's (its cache, or its conversation re-prefilled when the
   * cache file would not load); none when rebuilt from the transcript, which keeps only what the
   * user typed.
   */
  async restore(id: string, session: Conversation, messages: readonly ChatMessage[]): Promise<readonly SavedContextItem[]> {
    void this.claim(id);
    const outcome = await this.store.restore(id, session, messages).catch((error: unknown): RestoreOutcome => ({ kind: "none", reason: String(error) }));
    this.outcomes.set(id, outcome);
    if (outcome.kind === "none") await session.restoreFromMessages(messages);
    this.log.info(
      outcome.kind === "snapshot"
        ? `Chat ${id}: KV cache restored from its snapshot (${outcome.tokens} tokens)`
        : `Chat ${id}: no usable KV snapshot (${outcome.reason}); the conversation is re-prefilled`,
    );
    return outcome.kind === "none" ? [] : (outcome.context ?? []);
  }

  has(id: string): Promise<boolean> {
    return this.store.has(id);
  }

  /** After a completed turn: save in the background (queued behind the chat's next operation), with the context the turn left the model holding. */
  saveAfterTurn(id: string, conversation: Conversation, context?: TurnContext): void {
    void this.store.save(id, conversation, context).catch((error: unknown) => this.log.warn(`Saving the KV snapshot of chat ${id} failed: ${String(error)}`));
  }

  /** Reset Conversation: the snapshot no longer describes the chat (a save still being written never lands). */
  forget(id: string): Promise<void> {
    this.cancelDelete(id);
    return this.store.delete(id).catch(() => undefined);
  }

  /** The chat was closed: delete its snapshot unless the window is reloading (see DELETE_AFTER_CLOSE_MS). */
  forgetLater(id: string): Promise<void> {
    this.cancelDelete(id);
    const timer = this.clock.setTimeout(() => {
      this.pendingDeletes.delete(id);
      void this.forget(id).then(() => this.closedForGood(id));
    }, DELETE_AFTER_CLOSE_MS);
    timer.unref?.();
    this.pendingDeletes.set(id, timer);
    return this.store.markClosed(id, this.clock.now()).catch(() => undefined);
  }

  private closedForGood(id: string): Promise<void> {
    return this.onClosedForGood(id).catch((error: unknown) => this.log.warn(`Removing the closed chat ${id}'s file failed: ${String(error)}`));
  }

  private cancelDelete(id: string): void {
    if (!this.pendingDeletes.has(id)) return;
    this.clock.clearTimeout(this.pendingDeletes.get(id));
    this.pendingDeletes.delete(id);
  }

  /** Extension shutdown (a reload, a restart): keep every snapshot (a closed chat's tombstone stays on disk). */
  dispose(): void {
    for (const timer of this.pendingDeletes.values()) this.clock.clearTimeout(timer);
    this.pendingDeletes.clear();
  }
}
