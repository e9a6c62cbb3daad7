// The @-completion list under the input: workspace files and keywords from the host, moved
// through with the arrow keys, picked with Enter, Tab or a click.
import { el, icon } from "./dom";
import type { MentionOption } from "./protocol/messages";

export class MentionList {
  readonly element: HTMLElement;
  private options: readonly MentionOption[] = [];
  private index = 0;

  constructor(private readonly onPick: (option: MentionOption) => void) {
    this.element = el("div", { class: "mention-list", role: "listbox", "data-testid": "mention-list", "aria-label": "Mention a file" });
    this.element.hidden = true;
    // mousedown, not click: the input must keep the focus (and its caret) while picking.
    this.element.addEventListener("mousedown", (event) => {
      const row = (event.target as HTMLElement).closest<HTMLElement>("[data-index]");
      if (!row) return;
      event.preventDefault();
      const option = this.options[Number(row.dataset.index)];
      if (option) this.onPick(option);
    });
  }

  get open(): boolean {
    return !this.element.hidden;
  }

  show(options: readonly MentionOption[]): void {
    this.options = options;
    this.index = 0;
    this.render();
  }

  hide(): void {
    this.options = [];
    this.element.hidden = true;
    this.element.replaceChildren();
  }

  move(step: number): void {
    if (this.options.length === 0) return;
    this.index = (this.index + step + this.options.length) % this.options.length;
    this.render();
  }

  current(): MentionOption | undefined {
    return this.options[this.index];
  }

  private render(): void {
    const rows = this.options.map((option, i) =>
      el(
        "div",
        { class: `mention-option${i === this.index ? " selected" : ""}`, role: "option", "aria-selected": String(i === this.index), "data-index": String(i), "data-testid": "mention-option", "data-value": option.value },
        icon(option.kind === "keyword" ? "symbol-keyword" : "file"),
        el("span", { class: "mention-label" }, option.label),
        el("span", { class: "mention-detail" }, option.detail ?? ""),
      ),
    );
    if (rows.length === 0) rows.push(el("div", { class: "mention-empty" }, "No matching files"));
    this.element.replaceChildren(...rows);
    this.element.hidden = false;
    this.element.querySelector(".selected")?.scrollIntoView({ block: "nearest" });
  }
}
