// The input box: Enter sends, Shift+Enter adds a newline, Escape stops a running reply.
// Sending while busy is allowed on purpose: the host queues the message, and the queued
// count from its "busy" messages tells the user so.
import { el, iconButton } from "./dom";
import type { WebviewToHost } from "./protocol";

const MAX_TEXTAREA_PX = 240;

export class Composer {
  readonly element: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly stopButton: HTMLButtonElement;
  private readonly queued: HTMLElement;
  private busy = false;

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

    this.input.addEventListener("keydown", (event) => this.onKeyDown(event));
    this.input.addEventListener("input", () => {
      this.autosize();
      this.onDraftChange(this.input.value);
    });
    send.addEventListener("click", () => this.send());
    this.stopButton.addEventListener("click", () => this.post({ type: "stop" }));

    this.element = el(
      "div",
      { class: "composer" },
      el("div", { class: "composer-box" }, this.input, el("div", { class: "composer-actions" }, this.stopButton, send)),
      el("div", { class: "composer-footer" }, this.queued, el("span", { class: "composer-hint" }, "Enter to send · Shift+Enter for a new line")),
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

  private onKeyDown(event: KeyboardEvent): void {
    // While an IME composition is open, Enter confirms the composition, not the message.
    if (event.isComposing) return;
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
    this.post({ type: "send", text });
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
