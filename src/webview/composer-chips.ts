// The chips above the input: the context the next message will carry, each with its token
// cost and whether it is new, a diff, or already known to the model (dimmed: costs
// nothing). A chip can be taken off the next message, a file pinned, the active file
// switched off for this chat. Removal shows at once; the host confirms with fresh chips.
import { el, icon } from "./dom";
import type { ComposerChip, WebviewToHost } from "./protocol/messages";

const KIND_ICONS: Record<ComposerChip["kind"], string> = {
  file: "file",
  selection: "selection",
  diagnostics: "warning",
  outline: "list-tree",
};

function costOf(chip: ComposerChip): string {
  switch (chip.state) {
    case "new":
      // e.g. "truncated" or "lines 120-180 around the cursor": the user should see it was cut.
      return chip.detail ? `${chip.tokens} tok · ${chip.detail}` : `${chip.tokens} tok`;
    case "diff":
      return `diff · ${chip.tokens} tok`;
    case "known":
      return "known";
    case "skipped":
      return chip.detail ?? "not sent";
    case "removed":
      return `closed · ${chip.tokens} tok`;
  }
}

function titleOf(chip: ComposerChip): string {
  const what =
    chip.state === "known"
      ? "already known to the model: costs nothing"
      : chip.state === "skipped"
        ? `not sent: ${chip.detail ?? "refused"}`
        : chip.state === "removed"
          ? `no longer open: a one-line note tells the model (${chip.tokens} tokens); remove the chip to say nothing`
          : chip.state === "diff"
          ? `changed since the model saw it: sent as a diff (${chip.tokens} tokens)`
          : `sent in full (${chip.tokens} tokens)`;
  const origin = chip.origin === "pinned" ? " · pinned" : chip.origin === "mention" ? " · mentioned" : "";
  return `${chip.label}\n${what}${origin}${chip.detail && chip.state !== "skipped" ? ` · ${chip.detail}` : ""}`;
}

export class ComposerChips {
  readonly element: HTMLUListElement;
  private chips: ComposerChip[] | undefined;
  private activeFileOff = false;

  constructor(private readonly post: (message: WebviewToHost) => void) {
    this.element = el("ul", { class: "chips composer-chips", "data-testid": "composer-chips", "aria-label": "Context for the next message" });
    this.element.hidden = true;
  }

  /** The ids the next message is sent with; undefined until the host has said what they are. */
  ids(): string[] | undefined {
    return this.chips?.map((c) => c.id);
  }

  show(chips: readonly ComposerChip[], activeFileOff: boolean): void {
    this.chips = [...chips];
    this.activeFileOff = activeFileOff;
    this.render();
  }

  private remove(id: string): void {
    this.chips = this.chips?.filter((c) => c.id !== id);
    this.render();
    this.post({ type: "removeChip", id });
  }

  private render(): void {
    const chips = this.chips ?? [];
    const items: HTMLElement[] = chips.map((chip) => this.renderChip(chip));
    if (this.activeFileOff) {
      const on = el("button", { type: "button", class: "chip-action chip-toggle-on", "data-testid": "active-file-on", title: "Attach the active editor's file to messages in this chat again" });
      on.append(icon("eye"), el("span", {}, "Active file off"));
      on.addEventListener("click", () => this.post({ type: "setActiveFile", on: true }));
      items.push(el("li", { class: "chip chip-off" }, on));
    }
    const total = chips.reduce((sum, c) => sum + c.tokens, 0);
    if (chips.length > 0) items.push(el("li", { class: "composer-chips-total", "data-testid": "context-total" }, `${total} tokens of context`));
    this.element.replaceChildren(...items);
    this.element.hidden = items.length === 0;
  }

  private renderChip(chip: ComposerChip): HTMLElement {
    const item = el("li", {
      class: `chip chip-${chip.kind} chip-state-${chip.state}`,
      "data-testid": "composer-chip",
      "data-id": chip.id,
      "data-state": chip.state,
      "data-origin": chip.origin,
      title: titleOf(chip),
    });
    item.append(
      icon(chip.state === "diff" ? "diff" : chip.state === "skipped" ? "circle-slash" : chip.state === "removed" ? "close" : KIND_ICONS[chip.kind]),
      el("span", { class: "chip-label" }, chip.label),
      el("span", { class: "chip-cost", "data-testid": "chip-cost" }, costOf(chip)),
    );
    if (chip.pinnable) {
      const pinned = chip.origin === "pinned";
      item.append(this.action(pinned ? "pinned" : "pin", pinned ? "Unpin: stop re-checking this file every turn" : "Pin: re-check this file every turn, sending its changes", "chip-pin", () =>
        this.post({ type: "pinChip", id: chip.id, pinned: !pinned }),
      ));
    }
    if (chip.origin === "auto" && chip.kind === "file" && chip.state !== "removed") {
      item.append(this.action("eye-closed", "Stop attaching the active file in this chat", "chip-active-off", () => this.post({ type: "setActiveFile", on: false })));
    }
    item.append(this.action("close", chip.origin === "auto" ? "Remove from the next message" : "Remove", "chip-remove", () => this.remove(chip.id)));
    return item;
  }

  private action(codicon: string, label: string, testId: string, onClick: () => void): HTMLButtonElement {
    const button = el("button", { type: "button", class: "chip-action", title: label, "aria-label": label, "data-testid": testId });
    button.append(icon(codicon));
    button.addEventListener("click", onClick);
    return button;
  }
}
