// What Apply says on a code block: "Applying…" (with Stop), applied (review the diff, Keep
// or Undo in its title), kept, undone, reverted (the editor's undo after Keep), or why nothing changed (with Fast Apply when the
// model may still merge it). And Apply All, on a reply whose blocks name several files.
import "./styles/apply.css";
import { codeBlocksOf, namedFiles } from "../extension/core/apply/code-blocks";
import { el, icon, iconButton } from "./dom";
import type { ApplyState, HostToWebview } from "./protocol/messages";

/** The buttons Apply adds (the click handler in code-blocks.ts knows them by these). */
export const APPLY_TEST_IDS = ["apply-code", "apply-fast", "apply-cancel"] as const;

const ICONS: Record<ApplyState, string> = {
  working: "loading",
  applied: "diff",
  unchanged: "check",
  proposed: "warning",
  error: "warning",
  cancelled: "circle-slash",
  kept: "check",
  undone: "discard",
  reverted: "discard",
};

/** Shows the host's word on a block of a reply. */
export function showApplyState(root: ParentNode, message: Extract<HostToWebview, { type: "applyState" }>): void {
  const entry = Array.from(root.querySelectorAll("[data-entry-id]")).find((e) => e.getAttribute("data-entry-id") === message.entryId);
  const block = entry ? Array.from(entry.querySelectorAll(".entry-answer .code-block"))[message.block] : undefined;
  if (block) render(block, message.state, message.message, message.offerFast === true);
}

/** Right after a click, before the host answers. */
export function showApplyWorking(block: Element): void {
  render(block, "working", "Applying…", false);
}

function render(block: Element, state: ApplyState, text: string, offerFast: boolean): void {
  let status = block.querySelector(":scope > .apply-status");
  if (!status) {
    status = el("div", { class: "apply-status", "data-testid": "apply-status", role: "status" });
    block.querySelector(":scope > .code-toolbar")?.after(status);
  }
  status.setAttribute("data-state", state);
  const parts: (Node | string)[] = [icon(ICONS[state], state === "working" ? "codicon-modifier-spin" : ""), el("span", { class: "apply-message" }, text)];
  if (state === "working") parts.push(iconButton("debug-stop", "Stop applying", "apply-cancel", "Stop"));
  if (offerFast) parts.push(iconButton("sparkle", "Fast Apply: let the model merge the block", "apply-fast", "Fast Apply"));
  status.replaceChildren(...parts);
}

/** Apply All for a reply whose code blocks name two or more files; undefined otherwise. */
export function applyAllButton(answer: string): HTMLButtonElement | undefined {
  const files = namedFiles(codeBlocksOf(answer));
  if (files.length < 2) return undefined;
  const button = iconButton("check-all", `Apply All: ${files.join(", ")}`, "apply-all", "Apply All");
  button.classList.add("entry-apply-all");
  return button;
}
