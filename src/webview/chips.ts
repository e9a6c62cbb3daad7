// Context chips under a user message: what workspace context was attached to it (or
// removed / skipped), so the user can see what the model was actually told.
import { el, icon } from "./dom";
import type { ContextChip } from "./protocol/messages";

const CHIP_ICONS: Record<ContextChip["kind"], string> = {
  file: "file",
  selection: "selection",
  diagnostics: "warning",
  outline: "list-tree",
  diff: "diff",
  removed: "close",
  skipped: "circle-slash",
};

export function renderChips(chips: readonly ContextChip[]): HTMLElement {
  const list = el("ul", { class: "chips", "aria-label": "Attached context" });
  for (const chip of chips) {
    const item = el("li", { class: `chip chip-${chip.kind}`, title: chip.detail ? `${chip.label}\n${chip.detail}` : chip.label });
    item.append(icon(CHIP_ICONS[chip.kind] ?? "file"), el("span", { class: "chip-label" }, chip.label));
    // A refusal says why right on the chip, not only in its tooltip.
    if (chip.kind === "skipped" && chip.detail) item.append(el("span", { class: "chip-reason" }, chip.detail));
    list.append(item);
  }
  return list;
}
