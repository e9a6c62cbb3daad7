// The smallest whole-line replacement that turns one text into another: what the editor edit
// touches, so the cursor, folding and the undo stop cover only the changed lines.

export interface TextEdit {
  /** Offsets into the old text: replace [start, end) with `text`. */
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

export function minimalEdit(before: string, after: string): TextEdit | undefined {
  if (before === after) return undefined;
  const limit = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix < limit && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (suffix < limit - prefix && before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)) suffix++;
  // Whole lines: the prefix back to a line start, the suffix forward to one.
  while (prefix > 0 && before[prefix - 1] !== "\n") prefix--;
  while (suffix > 0 && before[before.length - suffix - 1] !== "\n") suffix--;
  return { start: prefix, end: before.length - suffix, text: after.slice(prefix, after.length - suffix) };
}
