// The input box: Enter sends, Shift+Enter adds a newline, Escape stops a running reply.
// Sending while busy is allowed on purpose: the host queues the message, and the queued
// count from its "busy" messages tells the user so. Typing "@" opens the mention list; the
// chips above the input say what context the message will carry, and it is sent with them.
import { ComposerChips } from "./composer-chips";
import { el, iconButton } from "./dom";
import { MentionList } from "./mention-list";
import { applyMention, mentionQueryAt, parseMentions, type MentionQuery } from "./mention-query";
import type { ComposerChip, MentionOption, WebviewToHost } from "./protocol/messages";

const MAX_TEXTAREA_PX = 240;
/** The chip ids the @-keywords produce (see the host's context choices). */
const KEYWORD_IDS: Readonly<Record<string, string>> = { problems: "diagnostics:workspace", workspace: "outline", selection: "selection" };

export class Composer {
  readonly element: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly stopButton: HTMLButtonElement;
  private readonly queued: HTMLElement;
  private readonly unattached: HTMLElement;
  private busy = false;
  readonly chips: ComposerChips;
  private readonly mentions: MentionList;
  private mentionRequest = 0;
  private mention: MentionQuery | undefined;

  constructor(
    private readonly post: (message: WebviewToHost) => void,
    private readonly onDraftChange: (draft: string) => void,
    initialDraft: string,
  ) {
    this.input = el("textarea", {
      class: "composer-input",
      "data-testid": "composer",
      rows: "1",
      placeholder: "Ask about your code",
      "aria-label": "Message",
    });
    this.input.value = initialDraft;
    const send = iconButton("send", "Send (Enter)", "send");
    this.stopButton = iconButton("debug-stop", "Stop (Escape)", "stop");
    this.stopButton.classList.add("stop-button");
    this.queued = el("span", { class: "queued", "aria-live": "polite" });
    this.unattached = el("span", { class: "unattached", "data-testid": "unattached-mentions", "aria-live": "polite" });

    this.input.addEventListener("keydown", (event) => this.onKeyDown(event));
    this.chips = new ComposerChips(post);
    this.mentions = new MentionList((option) => this.pickMention(option));
    this.input.addEventListener("input", () => {
      this.autosize();
      this.onDraftChange(this.input.value);
      this.updateMention();
      this.noteUnattached();
    });
    this.input.addEventListener("click", () => this.updateMention());
    this.input.addEventListener("blur", () => this.closeMentions());
    send.addEventListener("click", () => this.send());
    this.stopButton.addEventListener("click", () => this.post({ type: "stop" }));

    this.element = el(
      "div",
      { class: "composer" },
      this.chips.element,
      this.mentions.element,
      el("div", { class: "composer-box" }, this.input, el("div", { class: "composer-actions" }, this.stopButton, send)),
      el("div", { class: "composer-footer" }, this.queued, this.unattached, el("span", { class: "composer-hint" }, "Enter to send · Shift+Enter for a new line")),
    );
    this.setBusy(false, 0);
    requestAnimationFrame(() => this.autosize());
  }

  setBusy(busy: boolean, queued: number): void {
    this.busy = busy;
    this.stopButton.hidden = !busy;
    this.element.classList.toggle("busy", busy);
    this.queued.textContent = queued > 0 ? `${queued} queued` : "";
  }

  focus(): void {
    this.input.focus();
  }

  showContext(chips: readonly ComposerChip[], activeFileOff: boolean): void {
    this.chips.show(chips, activeFileOff);
    this.noteUnattached();
  }

  /**
   * A mention typed out instead of picked from the list attaches nothing (only chips are
   * sent): say so under the input rather than let the user believe the file went along.
   */
  private noteUnattached(): void {
    const ids = new Set(this.chips.ids() ?? []);
    const attached = (value: string) =>
      ids.has(`file:${value}`) || ids.has(KEYWORD_IDS[value] ?? "") || (value === "open" && [...ids].some((id) => id.startsWith("file:")));
    const caret = this.input.selectionStart ?? this.input.value.length;
    // The mention being typed is not finished yet: no warning for it.
    const typing = mentionQueryAt(this.input.value, caret)?.query;
    const missing = parseMentions(this.input.value).filter((value) => value !== typing && !attached(value));
    this.unattached.textContent = missing.length > 0 ? `Not attached: ${missing.map((m) => `@${m}`).join(", ")} (pick from the @ list)` : "";
  }

  /** The host's completions; answers to an older query (the user typed on) are dropped. */
  showMentionOptions(requestId: number, options: readonly MentionOption[]): void {
    if (requestId === this.mentionRequest && this.mention) this.mentions.show(options);
  }

  private updateMention(): void {
    const caret = this.input.selectionStart ?? this.input.value.length;
    const mention = this.input.selectionStart === this.input.selectionEnd ? mentionQueryAt(this.input.value, caret) : undefined;
    if (!mention) {
      this.closeMentions();
      return;
    }
    if (this.mention && this.mention.start === mention.start && this.mention.query === mention.query) return;
    this.mention = mention;
    this.post({ type: "mentionQuery", requestId: ++this.mentionRequest, query: mention.query });
  }

  private closeMentions(): void {
    this.mention = undefined;
    this.mentionRequest++;
    this.mentions.hide();
  }

  private pickMention(option: MentionOption): void {
    if (!this.mention) return;
    const caret = this.input.selectionStart ?? this.input.value.length;
    const next = applyMention(this.input.value, this.mention, caret, option.value);
    this.input.value = next.text;
    this.input.setSelectionRange(next.caret, next.caret);
    this.closeMentions();
    this.post({ type: "addMention", value: option.value });
    this.autosize();
    this.onDraftChange(this.input.value);
  }

  /** Keys that drive the open mention list; true when the key was used. */
  private onMentionKey(event: KeyboardEvent): boolean {
    if (!this.mentions.open) return false;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      this.mentions.move(event.key === "ArrowDown" ? 1 : -1);
    } else if ((event.key === "Enter" || event.key === "Tab") && !event.shiftKey) {
      const option = this.mentions.current();
      if (!option) return false;
      this.pickMention(option);
    } else if (event.key === "Escape") {
      this.closeMentions();
    } else {
      return false;
    }
    event.preventDefault();
    return true;
  }

  private onKeyDown(event: KeyboardEvent): void {
    // While an IME composition is open, Enter confirms the composition, not the message.
    if (event.isComposing) return;
    if (this.onMentionKey(event)) return;
    if (event.key === "Enter" && !event.shiftKey && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      this.send();
    } else if (event.key === "Escape" && this.busy) {
      event.preventDefault();
      this.post({ type: "stop" });
    }
  }

  private send(): void {
    const text = this.input.value;
    if (text.trim() === "") return;
    this.closeMentions();
    // Sent with exactly the chips on screen (none known yet: the host attaches what it has).
    const context = this.chips.ids();
    this.post(context ? { type: "send", text, context } : { type: "send", text });
    this.input.value = "";
    this.autosize();
    this.onDraftChange("");
  }

  // Grow with the text up to a limit, then scroll inside (set via CSSOM, which the CSP allows).
  private autosize(): void {
    this.input.style.height = "auto";
    this.input.style.height = `${Math.min(this.input.scrollHeight, MAX_TEXTAREA_PX)}px`;
  }
}
