// One transcript entry in the DOM. Assistant text is markdown (rendered incrementally while
// streaming); user text and notices are shown verbatim, as typed or as sent by the host.
// Reasoning (`<think>` …) goes into a collapsed disclosure above the answer; Copy takes the answer.
import { applyAllButton } from "./apply-status";
import { renderChips } from "./chips";
import { el, icon, iconButton } from "./dom";
import type { EntryStatus, TranscriptEntry, TurnStatsView } from "./protocol/messages";
import { statsTooltip, statusLine } from "./protocol/stats-line";
import { COPY_REPLY_EVENT, replyParts } from "./reply-parts";
import { renderComplete, StreamingMarkdown } from "./streaming-markdown";
import { ThinkingView } from "./thinking-view";

const AUTHORS = { user: { name: "You", icon: "account" }, assistant: { name: "Stateful Chat", icon: "sparkle" } } as const;

export class EntryView {
  readonly element: HTMLElement;
  private entry: TranscriptEntry;
  private text: string;
  private dirty = false;
  private readonly body: HTMLElement;
  private readonly thinking = new ThinkingView();
  private readonly answer = el("div", { class: "entry-answer" });
  private answerText = "";
  private readonly footer: HTMLElement;
  private streaming: StreamingMarkdown | undefined;
  private showsProgress = false;

  constructor(entry: TranscriptEntry) {
    this.entry = entry;
    this.text = entry.text;
    this.body = el("div", { class: "entry-body" });
    this.footer = el("div", { class: "entry-footer" });
    this.element = el("div", { class: "entry", "data-testid": "entry", "data-entry-id": entry.id });
    if (entry.role !== "notice") this.element.append(header(entry.role));
    this.element.append(this.body, this.footer);
    this.render();
  }

  get id(): string {
    return this.entry.id;
  }

  get isStreaming(): boolean {
    return this.entry.status === "streaming";
  }

  /** Queues streamed text; the DOM catches up in renderPending (once per frame). */
  appendTokens(text: string): void {
    this.text += text;
    this.dirty = true;
  }

  /** Renders queued tokens; returns whether anything was rendered. */
  renderPending(): boolean {
    if (!this.dirty) return false;
    this.dirty = false;
    this.renderBody();
    // The "Thinking…" hint goes away with the first visible token.
    if (this.showsProgress && this.text !== "") this.renderFooter();
    return true;
  }

  /** The host's word is final: its text replaces whatever was streamed. */
  finish(status: EntryStatus, text: string, stats: TurnStatsView | undefined): void {
    this.replace({ ...this.entry, status, text, ...(stats ? { stats } : {}) });
  }

  replace(entry: TranscriptEntry): void {
    this.entry = entry;
    this.text = entry.text;
    this.dirty = false;
    this.render();
  }

  private render(): void {
    const { role, status } = this.entry;
    this.element.setAttribute("data-role", role);
    this.element.setAttribute("data-status", status);
    this.element.className = `entry entry-${role} status-${status}`;
    // Screen readers hear the reply once it is complete, not token by token.
    if (status === "streaming") this.element.setAttribute("aria-busy", "true");
    else this.element.removeAttribute("aria-busy");
    this.streaming = role === "assistant" && status === "streaming" ? new StreamingMarkdown(this.answer) : undefined;
    this.renderBody();
    this.renderFooter();
  }

  private renderBody(): void {
    if (this.entry.role === "assistant" && this.entry.status !== "error") {
      const parts = replyParts(this.text);
      this.answerText = parts.answer;
      const done = parts.thinkingDone || this.entry.status !== "streaming";
      this.thinking.update(parts.thinking, done, this.entry.stats?.thinkingTokens);
      if (this.body.firstChild !== this.thinking.element) this.body.replaceChildren(this.thinking.element, this.answer);
      this.answer.classList.add("markdown");
      if (this.streaming) this.streaming.update(parts.answer);
      else renderComplete(this.answer, parts.answer);
    } else {
      this.body.classList.remove("markdown");
      const children: (Node | string)[] = [];
      if (this.entry.role === "notice") children.push(icon("info", "notice-icon"));
      if (this.entry.status === "error") children.push(icon("error", "error-icon"));
      children.push(el("span", { class: "plain-text" }, this.text));
      this.body.replaceChildren(...children);
    }
  }

  private renderFooter(): void {
    const { role, status, stats, chips } = this.entry;
    const parts: Node[] = [];
    if (role === "user" && chips && chips.length > 0) parts.push(renderChips(chips));
    if (role === "user" && status === "not-sent") {
      parts.push(el("div", { class: "entry-note" }, icon("circle-slash"), " Not sent: the model never read this message."));
    }
    this.showsProgress = role === "assistant" && status === "streaming" && this.text === "";
    if (this.showsProgress) {
      // The header already spins; this only says why the body is empty.
      parts.push(el("div", { class: "entry-progress" }, "Thinking…"));
    }
    if (role === "assistant" && (status === "complete" || status === "stopped") && this.answerText.trim()) {
      parts.push(this.copyButton());
      const applyAll = status === "complete" ? applyAllButton(this.answerText) : undefined;
      if (applyAll) parts.push(applyAll);
    }
    const line = role === "assistant" ? statusLine(status, stats) : "";
    if (line) {
      const statsEl = el("div", { class: "entry-stats", "data-testid": "stats", title: stats ? statsTooltip(stats) : undefined });
      statsEl.append(icon(status === "stopped" && !stats ? "debug-stop" : "dashboard"), el("span", {}, line));
      parts.push(statsEl);
    }
    this.footer.replaceChildren(...parts);
    this.footer.hidden = parts.length === 0;
  }

  /** Copies the answer, never the reasoning. */
  private copyButton(): HTMLButtonElement {
    const button = iconButton("copy", "Copy answer", "copy-reply");
    button.classList.add("entry-copy");
    button.addEventListener("click", () => {
      this.element.dispatchEvent(new CustomEvent(COPY_REPLY_EVENT, { bubbles: true, detail: this.answerText.trim() }));
    });
    return button;
  }
}

function header(role: "user" | "assistant"): HTMLElement {
  const author = AUTHORS[role];
  // The spinner shows only while the entry streams (CSS keys off the entry's status class).
  return el("div", { class: "entry-header" }, el("span", { class: "avatar" }, icon(author.icon)), el("span", { class: "author" }, author.name), icon("loading", "codicon-modifier-spin streaming-spinner"));
}
