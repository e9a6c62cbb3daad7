// Text as lines, the unit every apply strategy works in: a file's end-of-line style and
// whether it ends with one are kept, so writing the lines back gives the same bytes.
// Pure (no imports): the webview and the core share it.

export type Eol = "\n" | "\r\n";

export interface LineText {
  /** The lines, without their line breaks (a final line break adds no empty line). */
  readonly lines: readonly string[];
  readonly eol: Eol;
  /** The text ends with a line break. */
  readonly finalEol: boolean;
}

/** The text's line break: CRLF when most of its breaks are, LF otherwise (and for a single line). */
function eolOf(text: string): Eol {
  const crlf = text.split("\r\n").length - 1;
  const lf = text.split("\n").length - 1;
  return crlf > 0 && crlf * 2 >= lf ? "\r\n" : "\n";
}

export function toLines(text: string): LineText {
  const eol = eolOf(text);
  const finalEol = /\r?\n$/.test(text);
  const body = finalEol ? text.replace(/\r?\n$/, "") : text;
  return { lines: text === "" ? [] : body.split(/\r?\n/), eol, finalEol };
}

export function fromLines(lines: readonly string[], eol: Eol, finalEol: boolean): string {
  if (lines.length === 0) return "";
  return lines.join(eol) + (finalEol ? eol : "");
}

/** Lines of a code block (any line breaks), without blank lines at either end. */
export function blockLines(code: string): string[] {
  const lines = code.replace(/\r\n/g, "\n").split("\n");
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]!.trim() === "") start++;
  while (end > start && lines[end - 1]!.trim() === "") end--;
  return lines.slice(start, end).map((line) => line.replace(/\s+$/, ""));
}

export function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

/** A line that says something on its own (not blank, not only brackets and punctuation). */
export function isDistinctive(line: string): boolean {
  return (line.match(/[\p{L}\p{N}_]/gu)?.length ?? 0) >= 3;
}

/** Comment, decorator and docstring lines: what may sit above a definition and belong to it. */
export function isPreamble(line: string): boolean {
  const t = line.trim();
  return /^(\/\/|\/\*|\*|#(?!include|define|if|else|endif|pragma)|--|@|"""|''')/.test(t);
}

/** A half-open range of lines [start, end). */
export interface Region {
  readonly start: number;
  readonly end: number;
}
