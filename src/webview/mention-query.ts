// Finds the @-mention the caret is in while the user types, so the completion list can
// open. A mention starts with "@" at the start of the text or after whitespace or an opening
// bracket (so "user@host" is no mention) and runs to the caret without whitespace.

export interface MentionQuery {
  /** Index of the "@". */
  readonly start: number;
  /** What follows the "@" up to the caret. */
  readonly query: string;
}

const OPENERS = /[\s([{"'`]/;

export function mentionQueryAt(text: string, caret: number): MentionQuery | undefined {
  for (let i = caret - 1; i >= 0; i--) {
    const c = text[i];
    if (c === "@") {
      if (i > 0 && !OPENERS.test(text[i - 1])) return undefined;
      return { start: i, query: text.slice(i + 1, caret) };
    }
    if (/\s/.test(c)) return undefined;
  }
  return undefined;
}

/** Every mention in a message ("@value"), in order; trailing punctuation is not part of it. */
export function parseMentions(text: string): string[] {
  const found: string[] = [];
  const pattern = /(^|[\s([{"'`])@([^\s@]+)/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const value = match[2].replace(/[.,;:!?)\]}"'`]+$/, "");
    if (value) found.push(value);
  }
  return found;
}

/** Replaces the mention at `query` with "@value " and returns the new text and caret. */
export function applyMention(text: string, query: MentionQuery, caret: number, value: string): { text: string; caret: number } {
  const inserted = `@${value} `;
  const after = text.slice(caret).replace(/^\S*/, "").replace(/^ /, "");
  return { text: text.slice(0, query.start) + inserted + after, caret: query.start + inserted.length };
}
