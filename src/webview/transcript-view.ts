// The scrolling list of entries. Streamed tokens only mark entries dirty; one flush per
// animation frame renders them, and only the streaming entries are touched.
import { EntryView } from "./entry-view";
import { FrameBatcher } from "./frame-batcher";
import type { EntryStatus, TranscriptEntry, TurnStatsView } from "./protocol/messages";

/** Counters the webview tests read (window.statefulChatTestHooks); cheap enough to keep in production. */
export interface RenderCounters {
  /** Batched renders of streamed tokens (at most one per animation frame). */
  streamRenders: number;
  /** "tokens" messages received. */
  tokenMessages: number;
}

// How close to the bottom (px) still counts as "at the bottom" for auto-scroll.
const BOTTOM_SLACK = 24;

export class TranscriptView {
  readonly element: HTMLElement;
  readonly counters: RenderCounters = { streamRenders: 0, tokenMessages: 0 };
  private readonly entries = new Map<string, EntryView>();
  private readonly dirty = new Set<EntryView>();
  private readonly batcher = new FrameBatcher(() => this.flush());
  private readonly empty: HTMLElement;
  private stickToBottom = true;

  /** `empty`: what shows while there are no entries (empty-state.ts). */
  constructor(
    private readonly onScroll: (scrollTop: number, atBottom: boolean) => void,
    empty: HTMLElement,
  ) {
    this.element = document.createElement("div");
    this.element.className = "transcript";
    this.element.setAttribute("role", "log");
    this.element.setAttribute("aria-live", "polite");
    this.element.setAttribute("aria-label", "Conversation");
    this.element.tabIndex = 0;
    this.empty = empty;
    this.element.append(this.empty);
    this.element.addEventListener("scroll", () => {
      this.stickToBottom = this.isAtBottom();
      this.onScroll(this.element.scrollTop, this.stickToBottom);
    }, { passive: true });
  }

  reset(entries: readonly TranscriptEntry[]): void {
    this.entries.clear();
    this.dirty.clear();
    this.element.replaceChildren(this.empty);
    for (const entry of entries) this.add(entry);
    this.updateEmpty();
  }

  upsert(entry: TranscriptEntry): void {
    // A message the user just sent brings them back to the bottom to watch the reply.
    if (entry.role === "user" && !this.entries.has(entry.id)) this.stickToBottom = true;
    this.withScroll(() => {
      const existing = this.entries.get(entry.id);
      if (existing) {
        this.dirty.delete(existing);
        existing.replace(entry);
      } else {
        this.add(entry);
      }
      this.updateEmpty();
    });
  }

  appendTokens(id: string, text: string): void {
    this.counters.tokenMessages++;
    const view = this.entries.get(id);
    // Tokens for an entry we never saw (or that already finished) are stale: drop them.
    if (!view || !view.isStreaming) return;
    view.appendTokens(text);
    this.dirty.add(view);
    this.batcher.schedule();
  }

  finish(id: string, status: EntryStatus, text: string, stats: TurnStatsView | undefined): void {
    const view = this.entries.get(id);
    if (!view) return;
    this.dirty.delete(view);
    this.withScroll(() => view.finish(status, text, stats));
  }

  /** Restores a saved scroll position (after the host's init has filled the list). */
  restoreScroll(scrollTop: number, atBottom: boolean): void {
    this.stickToBottom = atBottom;
    this.element.scrollTop = atBottom ? this.element.scrollHeight : scrollTop;
  }

  scrollToBottom(): void {
    this.stickToBottom = true;
    this.element.scrollTop = this.element.scrollHeight;
  }

  private add(entry: TranscriptEntry): void {
    const view = new EntryView(entry);
    this.entries.set(entry.id, view);
    this.element.append(view.element);
  }

  private flush(): void {
    if (this.dirty.size === 0) return;
    this.withScroll(() => {
      for (const view of this.dirty) view.renderPending();
      this.dirty.clear();
    });
    this.counters.streamRenders++;
  }

  // Follow new content only if the user was already at the bottom; someone reading an
  // earlier answer must not be yanked down by every token.
  private withScroll(change: () => void): void {
    const follow = this.stickToBottom;
    change();
    if (follow) this.element.scrollTop = this.element.scrollHeight;
  }

  private isAtBottom(): boolean {
    const { scrollTop, scrollHeight, clientHeight } = this.element;
    return scrollHeight - scrollTop - clientHeight <= BOTTOM_SLACK;
  }

  private updateEmpty(): void {
    this.empty.hidden = this.entries.size > 0;
  }
}
