// A tiny element factory: the UI is built with DOM calls, never HTML strings, so nothing
// but sanitized markdown ever goes through innerHTML.
type Attrs = Readonly<Record<string, string | undefined>>;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined) element.setAttribute(name, value);
  }
  element.append(...children);
  return element;
}

/** A codicon glyph; decorative, so hidden from screen readers. */
export function icon(name: string, extraClass = ""): HTMLSpanElement {
  return el("span", { class: `codicon codicon-${name} ${extraClass}`.trim(), "aria-hidden": "true" });
}

/** A toolbar-style icon button; the label doubles as tooltip and accessible name. */
export function iconButton(codicon: string, label: string, testId?: string, text?: string): HTMLButtonElement {
  const button = el("button", { type: "button", class: text ? "button" : "icon-button", title: label, "aria-label": label, "data-testid": testId });
  button.append(icon(codicon));
  if (text) button.append(el("span", { class: "button-label" }, text));
  return button;
}
