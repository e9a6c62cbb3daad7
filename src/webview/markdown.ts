// Markdown → sanitized DOM. markdown-it runs with raw HTML disabled (model output is
// untrusted text), and DOMPurify cleans the result anyway as a second line of defence
// before anything reaches the document.
import DOMPurify from "dompurify";
import MarkdownIt from "markdown-it";
import { highlightCode } from "./highlight";

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

// Fenced and indented code both become <pre><code class="hljs language-x">; code-blocks.ts
// adds the Copy / Insert buttons after sanitizing, so buttons never pass through HTML strings.
md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx]!;
  const language = token.info.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  return codeHtml(token.content, language);
};
md.renderer.rules.code_block = (tokens, idx) => codeHtml(tokens[idx]!.content, "");

// Images would be fetched from wherever the model says (and blocked by the CSP anyway):
// show their alt text instead.
md.renderer.rules.image = (tokens, idx) => md.utils.escapeHtml(tokens[idx]!.content);

function codeHtml(content: string, language: string): string {
  const highlighted = highlightCode(content, language);
  const languageClass = language ? ` language-${md.utils.escapeHtml(language)}` : "";
  const languageAttr = language ? ` data-language="${md.utils.escapeHtml(language)}"` : "";
  return `<pre${languageAttr}><code class="hljs${languageClass}">${highlighted ?? md.utils.escapeHtml(content)}</code></pre>\n`;
}

const PURIFY_CONFIG = {
  RETURN_DOM_FRAGMENT: true as const,
  FORBID_TAGS: ["style", "img", "form", "input", "button", "iframe", "object", "embed", "svg", "math"],
  // Inline style attributes are blocked by the CSP; dropping them avoids console noise.
  FORBID_ATTR: ["style"],
};

/** Renders markdown source to a sanitized fragment ready to append. */
export function renderMarkdown(source: string): DocumentFragment {
  return DOMPurify.sanitize(md.render(source), PURIFY_CONFIG);
}
