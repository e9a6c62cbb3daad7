// The fenced code blocks of a reply, as Apply sees them: the code, the fence's info string,
// the file the block names (in the info string, or a path alone on the line just before it)
// and whether the text before it says the block is the whole file. Fences follow CommonMark
// (``` or ~~~, up to 3 spaces of indentation, closed by a fence of the same kind at least as
// long, or by the end of the reply). Pure: the webview uses it to decide on Apply All.

import { languageFromInfo, pathFromInfo, pathFromLine } from "./paths";

export interface ReplyCodeBlock {
  /** Position among the reply's fenced blocks, from 0. */
  readonly index: number;
  readonly info: string;
  readonly language: string;
  /** The code, without the line break before the closing fence. */
  readonly code: string;
  /** The file the block names, as written. */
  readonly path?: string;
  readonly pathFrom?: "info" | "line";
  /** The text just before the block says it is the whole (updated) file. */
  readonly saysWholeFile: boolean;
  /** The fence was never closed (a reply cut off inside it). */
  readonly unclosed: boolean;
}

const OPEN = /^( {0,3})(`{3,}|~{3,})(.*)$/;
/** "Here is the complete file", "the full updated code", "entire src/a.ts": the block is meant to replace the file. */
const WHOLE = /\b(whole|full|entire|complete|updated|final)\b(?:\s+[\w./`*-]+){0,3}?\s+(file|code|listing|version|source|module|script|program)\b/i;

export function codeBlocksOf(markdown: string): ReplyCodeBlock[] {
  const lines = markdown.replace(/\r\n/g, "\n").split("\n");
  const blocks: ReplyCodeBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const open = OPEN.exec(lines[i]!);
    if (!open || (open[2]![0] === "`" && open[3]!.includes("`"))) {
      i++;
      continue;
    }
    const indent = open[1]!.length;
    const marker = open[2]!;
    const info = open[3]!.trim();
    const body: string[] = [];
    let j = i + 1;
    let closed = false;
    for (; j < lines.length; j++) {
      const line = lines[j]!;
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1]![0] === marker[0] && close[1]!.length >= marker.length) {
        closed = true;
        break;
      }
      body.push(removeIndent(line, indent));
    }
    const before = precedingText(lines, i);
    const fromInfo = pathFromInfo(info);
    const fromLine = fromInfo ? undefined : before.line !== undefined ? pathFromLine(before.line) : undefined;
    blocks.push({
      index: blocks.length,
      info,
      language: languageFromInfo(info),
      code: body.join("\n"),
      ...(fromInfo ? { path: fromInfo, pathFrom: "info" as const } : fromLine ? { path: fromLine, pathFrom: "line" as const } : {}),
      saysWholeFile: WHOLE.test(before.paragraph),
      unclosed: !closed,
    });
    i = j + 1;
  }
  return blocks;
}

function removeIndent(line: string, indent: number): string {
  let n = 0;
  while (n < indent && line[n] === " ") n++;
  return line.slice(n);
}

/**
 * The line just before a fence (one blank line between is allowed) and the paragraph it
 * ends, unless that is the end of another block.
 */
function precedingText(lines: readonly string[], fence: number): { line?: string; paragraph: string } {
  let k = fence - 1;
  if (k >= 0 && lines[k]!.trim() === "") k--;
  if (k < 0 || lines[k]!.trim() === "" || OPEN.test(lines[k]!)) return { paragraph: "" };
  const paragraph: string[] = [];
  for (let p = k; p >= 0 && p > k - 3 && lines[p]!.trim() !== "" && !OPEN.test(lines[p]!); p--) paragraph.unshift(lines[p]!);
  return { line: lines[k], paragraph: paragraph.join(" ") };
}

/** Distinct files a reply's blocks name (what decides whether it offers Apply All). */
export function namedFiles(blocks: readonly ReplyCodeBlock[]): string[] {
  return [...new Set(blocks.flatMap((b) => (b.path ? [b.path.replace(/\\/g, "/").replace(/^\.\//, "")] : [])))];
}

/**
 * The block a webview click meant: the one at `index` when its code is the clicked code,
 * else the first with that code (the webview's renderer may count blocks differently, e.g.
 * indented code), else none (the caller applies the code alone).
 */
export function findBlock(blocks: readonly ReplyCodeBlock[], index: number, code: string): ReplyCodeBlock | undefined {
  const same = (b: ReplyCodeBlock) => b.code.replace(/\n$/, "") === code.replace(/\n$/, "");
  const at = blocks[index];
  if (at && same(at)) return at;
  return blocks.find(same);
}
