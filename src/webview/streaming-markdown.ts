// Renders a growing markdown text cheaply: finished blocks are rendered once and frozen,
// only the unfinished tail is re-rendered on each frame. At hundreds of tokens per second
// this keeps the per-frame cost proportional to the last paragraph, not the whole reply.
import { decorateCodeBlocks } from "./code-blocks";
import { renderMarkdown } from "./markdown";
import { lastStableCut } from "./markdown-split";

export class StreamingMarkdown {
  private frozenUpTo = 0;
  private readonly tail: HTMLElement;

  constructor(private readonly container: HTMLElement) {
    this.tail = document.createElement("div");
    this.tail.className = "md-chunk md-tail";
    container.replaceChildren(this.tail);
  }

  /** Brings the DOM up to date with text (which only ever grows while streaming). */
  update(text: string): void {
    if (text.length < this.frozenUpTo) {
      // The text was replaced rather than extended; start over.
      this.reset(text);
      return;
    }
    const cut = lastStableCut(text, this.frozenUpTo);
    if (cut > this.frozenUpTo) {
      const chunk = document.createElement("div");
      chunk.className = "md-chunk";
      chunk.append(renderMarkdown(text.slice(this.frozenUpTo, cut)));
      decorateCodeBlocks(chunk);
      this.container.insertBefore(chunk, this.tail);
      this.frozenUpTo = cut;
    }
    this.tail.replaceChildren(renderMarkdown(text.slice(this.frozenUpTo)));
    decorateCodeBlocks(this.tail);
  }

  private reset(text: string): void {
    this.frozenUpTo = 0;
    this.container.replaceChildren(this.tail);
    this.update(text);
  }
}

/** One-shot render of a complete text (entries that are not streaming). */
export function renderComplete(container: HTMLElement, text: string): void {
  container.replaceChildren(renderMarkdown(text));
  decorateCodeBlocks(container);
}
