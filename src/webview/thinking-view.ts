// A reply's reasoning, shown as a collapsed disclosure: "Thinking…" while the model is still
// inside its reasoning markers, "Thought for N tokens" once it has closed them. The text is
// plain (never markdown), so its code has no Copy / Insert buttons: those take the answer.
import { el, icon } from "./dom";

export class ThinkingView {
  readonly element: HTMLDetailsElement;
  private readonly label: HTMLElement;
  private readonly body: HTMLElement;

  constructor() {
    this.label = el("span", { class: "thinking-label" });
    this.body = el("div", { class: "thinking-body", "data-testid": "thinking-text" });
    const summary = el("summary", { class: "thinking-summary", "data-testid": "thinking-summary" }, icon("lightbulb"), this.label);
    this.element = el("details", { class: "thinking", "data-testid": "thinking" }, summary, this.body);
    this.element.hidden = true;
  }

  /** Shows `thinking` (hidden when undefined); the open/closed state is the user's and is kept. */
  update(thinking: string | undefined, done: boolean, tokens: number | undefined): void {
    this.element.hidden = thinking === undefined;
    if (thinking === undefined) return;
    if (this.body.textContent !== thinking) this.body.textContent = thinking;
    this.label.textContent = summaryText(done, tokens);
    this.element.classList.toggle("thinking-active", !done);
  }
}

function summaryText(done: boolean, tokens: number | undefined): string {
  if (!done) return "Thinking…";
  if (tokens === undefined || tokens <= 0) return "Thought";
  return `Thought for ${tokens} ${tokens === 1 ? "token" : "tokens"}`;
}
