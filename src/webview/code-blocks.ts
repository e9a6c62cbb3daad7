// Copy / Insert at Cursor / Apply toolbars on rendered code blocks. Buttons carry no code:
// the click handler reads it back from the <code> element, whose textContent is exactly the
// raw source (highlighting only adds spans). Apply and Apply All name the reply and the
// block's position in it; the host reads the rest from its own copy of the reply.
import { el, icon } from "./dom";
import type { WebviewToHost } from "./protocol/messages";
import { APPLY_TEST_IDS, showApplyWorking } from "./apply-status";

/** Wraps each <pre> in root in a code block with a language label and buttons. */
export function decorateCodeBlocks(root: ParentNode): void {
  for (const pre of Array.from(root.querySelectorAll("pre"))) {
    if (pre.parentElement?.classList.contains("code-block")) continue;
    const language = pre.getAttribute("data-language") ?? "";
    const toolbar = el("div", { class: "code-toolbar" }, el("span", { class: "code-language" }, language), ...CODE_BLOCK_ACTIONS.map(actionButton));
    const block = el("div", { class: "code-block" });
    pre.replaceWith(block);
    block.append(toolbar, pre);
  }
}

/** A code block's buttons: a codicon and a word on each (the tooltip and accessible name say more). */
const CODE_BLOCK_ACTIONS = [
  { testId: "copy-code", codicon: "copy", text: "Copy", label: "Copy" },
  { testId: "insert-code", codicon: "insert", text: "Insert", label: "Insert at Cursor" },
  { testId: "apply-code", codicon: "git-pull-request-go-to-changes", text: "Apply", label: "Apply to the Workspace" },
] as const;

function actionButton(action: (typeof CODE_BLOCK_ACTIONS)[number]): HTMLButtonElement {
  const button = el("button", { type: "button", class: "toolbar-button", title: action.label, "aria-label": action.label, "data-testid": action.testId });
  button.append(icon(action.codicon), el("span", { class: "button-label" }, action.text));
  return button;
}

/** One delegated listener for every code block, present and future. */
export function handleCodeBlockClicks(container: HTMLElement, post: (message: WebviewToHost) => void): void {
  container.addEventListener("click", (event) => {
    const button = (event.target as Element | null)?.closest?.("button[data-testid]");
    if (!button || !container.contains(button)) return;
    const testId = button.getAttribute("data-testid");
    if (testId === "apply-all") {
      const entry = button.closest("[data-entry-id]");
      const codes = entry ? answerBlocks(entry).map(rawCode) : [];
      if (entry && codes.length > 0 && codes.every((c): c is string => c !== undefined)) {
        answerBlocks(entry).forEach((block) => showApplyWorking(block));
        post({ type: "applyAll", entryId: entry.getAttribute("data-entry-id")!, codes });
      }
      return;
    }
    if (testId !== "copy-code" && testId !== "insert-code" && !(APPLY_TEST_IDS as readonly string[]).includes(testId ?? "")) return;
    const block = button.closest(".code-block");
    const code = rawCode(block);
    if (code === undefined || !block) return;
    if (testId === "copy-code" || testId === "insert-code") {
      post(testId === "copy-code" ? { type: "copyCode", code } : { type: "insertCode", code });
      if (testId === "copy-code") flashCopied(button);
      return;
    }
    const entry = block.closest("[data-entry-id]");
    const index = entry ? answerBlocks(entry).indexOf(block) : -1;
    if (!entry || index < 0) return;
    const entryId = entry.getAttribute("data-entry-id")!;
    if (testId === "apply-cancel") {
      post({ type: "cancelApply", entryId, block: index });
      return;
    }
    showApplyWorking(block);
    post({ type: "applyCode", entryId, block: index, code, ...(testId === "apply-fast" ? { fast: true } : {}) });
  });
}

/** The code blocks of an entry's answer (never its reasoning), in order. */
function answerBlocks(entry: Element): Element[] {
  return Array.from(entry.querySelectorAll(".entry-answer .code-block"));
}

function rawCode(block: Element | null): string | undefined {
  const code = block?.querySelector("pre > code");
  if (!code) return undefined;
  // markdown-it keeps the newline before the closing fence; nobody wants it pasted.
  return (code.textContent ?? "").replace(/\n$/, "");
}

// Brief "check" feedback, like VS Code's own copy buttons.
function flashCopied(button: Element): void {
  const glyph = button.querySelector(".codicon");
  const label = button.querySelector(".button-label");
  if (!glyph) return;
  glyph.classList.replace("codicon-copy", "codicon-check");
  if (label) label.textContent = "Copied";
  setTimeout(() => {
    glyph.classList.replace("codicon-check", "codicon-copy");
    if (label) label.textContent = "Copy";
  }, 1200);
}
