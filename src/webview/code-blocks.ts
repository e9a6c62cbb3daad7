// Copy / Insert-at-cursor toolbars on rendered code blocks. Buttons carry no code: the
// click handler reads it back from the <code> element, whose textContent is exactly the
// raw source (highlighting only adds spans).
import { el, icon } from "./dom";
import type { WebviewToHost } from "./protocol";

/** Wraps each <pre> in root in a code block with a language label and buttons. */
export function decorateCodeBlocks(root: ParentNode): void {
  for (const pre of Array.from(root.querySelectorAll("pre"))) {
    if (pre.parentElement?.classList.contains("code-block")) continue;
    const language = pre.getAttribute("data-language") ?? "";
    const toolbar = el(
      "div",
      { class: "code-toolbar" },
      el("span", { class: "code-language" }, language),
      actionButton("copy", "Copy", "copy-code"),
      actionButton("insert", "Insert at Cursor", "insert-code"),
    );
    const block = el("div", { class: "code-block" });
    pre.replaceWith(block);
    block.append(toolbar, pre);
  }
}

function actionButton(codicon: string, label: string, testId: string): HTMLButtonElement {
  const button = el("button", { type: "button", class: "icon-button", title: label, "aria-label": label, "data-testid": testId });
  button.append(icon(codicon));
  return button;
}

/** One delegated listener for every code block, present and future. */
export function handleCodeBlockClicks(container: HTMLElement, post: (message: WebviewToHost) => void): void {
  container.addEventListener("click", (event) => {
    const button = (event.target as Element | null)?.closest?.("button[data-testid]");
    if (!button || !container.contains(button)) return;
    const testId = button.getAttribute("data-testid");
    if (testId !== "copy-code" && testId !== "insert-code") return;
    const code = rawCode(button.closest(".code-block"));
    if (code === undefined) return;
    post(testId === "copy-code" ? { type: "copyCode", code } : { type: "insertCode", code });
    if (testId === "copy-code") flashCopied(button);
  });
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
  if (!glyph) return;
  glyph.classList.replace("codicon-copy", "codicon-check");
  setTimeout(() => glyph.classList.replace("codicon-check", "codicon-copy"), 1200);
}
