// Fast apply, the pure parts: the prompt that asks the model to rewrite a region of a file
// with a change (most of what it writes back is the original, which prompt lookup drafts
// from the prompt itself), reading the code out of its reply, and the checks that keep a bad
// rewrite from being applied: cut off (the reply stopped early or ends before the region
// does), or lines changed far from the lines the block is about.

import { diffArrays } from "diff";
import { blockLines, isDistinctive, toLines, type Region } from "./lines";
import type { StopReason } from "../generation";

export const FAST_APPLY_SYSTEM_PROMPT =
  "You merge code changes into files. Reply with the complete updated code in one fenced code block and nothing else. " +
  "Copy every line the change does not touch exactly as it is.";

export interface FastApplyRequest {
  /** Workspace-relative path, for the prompt. */
  readonly path: string;
  /** Fence language ("ts"), may be empty. */
  readonly language: string;
  /** The region's text (lines of the file, without the line break after the last). */
  readonly original: string;
  readonly code: string;
  /** Where the region sits in the file, for the prompt (1-based lines) when it is not the whole file. */
  readonly lines?: { readonly first: number; readonly last: number; readonly total: number };
}

/**
 * The change first, the original last: the reply starts right after the text it mostly
 * copies (small models copy the nearest code far more faithfully), and that text is in the
 * session's cache, where prompt lookup drafts the copy from.
 */
export function fastApplyPrompt(request: FastApplyRequest): string {
  const fence = fenceFor(request.original + "\n" + request.code);
  const where = request.lines ? ` (lines ${request.lines.first}–${request.lines.last} of ${request.lines.total})` : "";
  return [
    `The change to ${request.path} (a fragment: "..." marks lines it leaves out):`,
    `${fence}${request.language}`,
    blockLines(request.code).join("\n"),
    fence,
    "",
    `The code of ${request.path}${where}, to copy with the change applied:`,
    `${fence}${request.language}`,
    request.original,
    fence,
  ].join("\n");
}

/** What the model's reply is opened with: the code block the prompt asks for, so the reply starts with the code. */
export function replyOpening(request: FastApplyRequest): string {
  return `${fenceFor(request.original + "\n" + request.code)}${request.language}\n`;
}

/** A fence longer than any run of backticks in the text. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(longest + 1);
}

export interface ParsedReply {
  /** The code the reply holds (the first fenced block, or the whole reply when it has none). */
  readonly code: string;
  /** A fence was opened; `closed` says whether it was closed. */
  readonly fenced: boolean;
  readonly closed: boolean;
  /** The closing fence's line is complete (a line break follows it): nothing more can change the code. */
  readonly settled?: boolean;
}

/** The code in a (possibly still streaming) fast-apply reply. */
export function parseFastApplyReply(reply: string): ParsedReply {
  const text = reply.replace(/\r\n/g, "\n");
  const open = /^[ \t]*(`{3,}|~{3,})[^\n`]*\n/m.exec(text);
  if (!open) {
    // A partial opening fence while streaming ("``"): nothing to show yet.
    if (/^\s*`{1,3}[^\n]*$/.test(text)) return { code: "", fenced: true, closed: false };
    return { code: text.replace(/\n+$/, ""), fenced: false, closed: false };
  }
  const marker = open[1]!;
  const start = open.index + open[0].length;
  const rest = text.slice(start);
  const close = new RegExp(`^[ \\t]*${marker[0] === "`" ? "`" : "~"}{${marker.length},}[ \\t]*$`, "m").exec(rest);
  if (!close) {
    // Streaming: drop a line that may be the closing fence arriving.
    const partial = rest.replace(/\n?[ \t]*[`~]{1,}[ \t]*$/, "");
    return { code: partial.replace(/\n$/, ""), fenced: true, closed: false };
  }
  const settled = rest.slice(close.index + close[0].length).startsWith("\n");
  return { code: rest.slice(0, close.index).replace(/\n$/, ""), fenced: true, closed: true, ...(settled ? { settled } : {}) };
}

export type FastApplyCheck =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly problem: "cut-off" | "far" | "empty";
      readonly message: string;
      /** The lines of the original (1-based, inclusive) the problem is about. */
      readonly lines?: { readonly first: number; readonly last: number };
    };

/**
 * Whether a fast-apply output may be applied to `original` (the region it rewrote):
 * - cut off: the reply hit its token limit, left its code block open, or stopped before the
 *   region's end while the change was not about the end;
 * - far: it changed lines of the original far from every line the block shares with it
 *   (or, when the block shares none, more lines than the block could replace).
 */
export function checkFastApply(input: { readonly original: string; readonly code: string; readonly reply: ParsedReply; readonly stopReason: StopReason }): FastApplyCheck {
  const { reply } = input;
  if (input.stopReason === "max_tokens" || input.stopReason === "capacity") {
    return { ok: false, problem: "cut-off", message: "the model's rewrite was cut off (it reached its token limit)" };
  }
  if (input.stopReason === "cancelled") return { ok: false, problem: "cut-off", message: "the rewrite was stopped before it was complete" };
  if (reply.fenced && !reply.closed) return { ok: false, problem: "cut-off", message: "the model's rewrite ended inside its code block (cut off)" };
  const original = toLines(input.original).lines.map((l) => l.trimEnd());
  const output = toLines(reply.code).lines.map((l) => l.trimEnd());
  if (output.every((l) => l.trim() === "")) return { ok: false, problem: "empty", message: "the model wrote no code" };

  const block = blockLines(input.code);
  const window = changeWindow(original, block);
  const margin = Math.max(3, Math.ceil(block.length / 2));
  const hunks = changedHunks(original, output);
  if (hunks.length === 0) return { ok: true };

  const last = hunks[hunks.length - 1]!;
  const reachesEnd = last.removed > 0 && last.at + last.removed >= original.length && last.added === 0;
  const windowAtEnd = window !== undefined && window.end + margin >= original.length;
  if (reachesEnd && !windowAtEnd && last.removed >= Math.max(2, Math.ceil(original.length / 10))) {
    return {
      ok: false,
      problem: "cut-off",
      message: `the model's rewrite stops at line ${last.at} of ${original.length}: it leaves out the rest (cut off)`,
      lines: { first: last.at + 1, last: original.length },
    };
  }
  if (window) {
    const lo = window.start - margin;
    const hi = window.end + margin;
    const far = hunks.find((h) => h.at + Math.max(h.removed, 1) <= lo || h.at > hi);
    if (far) {
      const first = far.at + 1;
      const lastLine = far.at + Math.max(far.removed, 1);
      return {
        ok: false,
        problem: "far",
        message: `the model changed line${far.removed > 1 ? `s ${first}–${lastLine}` : ` ${first}`}, far from the change (lines ${window.start + 1}–${window.end})`,
        lines: { first, last: lastLine },
      };
    }
    return { ok: true };
  }
  // The block shares no line with the original (new code): its changes must stay together,
  // and remove at most about as many lines as it has.
  const from = hunks[0]!.at;
  const to = Math.max(...hunks.map((h) => h.at + h.removed));
  const removed = hunks.reduce((n, h) => n + h.removed, 0);
  if (removed > block.length + margin || to - from > 2 * block.length + margin) {
    return {
      ok: false,
      problem: "far",
      message: `the model changed lines ${from + 1}–${Math.max(from + 1, to)}, more than the change (${block.length} lines) could replace`,
      lines: { first: from + 1, last: Math.max(from + 1, to) },
    };
  }
  return { ok: true };
}

/** A change of the output against the original: at `at` (0-based line of the original), `removed` lines replaced by `added`. */
interface Hunk {
  readonly at: number;
  readonly removed: number;
  readonly added: number;
}

function changedHunks(original: readonly string[], output: readonly string[]): Hunk[] {
  const hunks: Hunk[] = [];
  let at = 0;
  let current: { at: number; removed: number; added: number } | undefined;
  for (const part of diffArrays(original as string[], output as string[])) {
    const count = part.count ?? part.value.length;
    if (!part.added && !part.removed) {
      if (current) hunks.push(current);
      current = undefined;
      at += count;
      continue;
    }
    current ??= { at, removed: 0, added: 0 };
    if (part.removed) {
      current.removed += count;
      at += count;
    } else current.added += count;
  }
  if (current) hunks.push(current);
  return hunks;
}

/** The original's lines the block is about: the span of the distinctive lines they share (aligned in order). */
function changeWindow(original: readonly string[], block: readonly string[]): Region | undefined {
  const a = original.map((l) => l.trim());
  const b = block.map((l) => l.trim());
  let at = 0;
  let start: number | undefined;
  let end: number | undefined;
  for (const part of diffArrays(a, b)) {
    const count = part.count ?? part.value.length;
    if (part.added) continue;
    if (!part.removed) {
      for (let k = 0; k < count; k++) {
        if (!isDistinctive(a[at + k]!)) continue;
        start ??= at + k;
        end = at + k + 1;
      }
    }
    at += count;
  }
  return start === undefined || end === undefined ? undefined : { start, end };
}

export interface FastApplyBudget {
  readonly fits: boolean;
  readonly promptTokens: number;
  /** Reply tokens to allow: the region with room for the change, and some slack. */
  readonly maxTokens: number;
  /** Tokens the whole exchange may take at most, below the state's capacity. */
  readonly available: number;
}

/**
 * Whether a fast apply fits one side session of `capacity` tokens: the prompt (with the
 * chat template's few extra tokens, `overhead`), and a reply as long as the region plus the
 * block's new lines, below the margin the turn runner keeps free.
 */
export function fastApplyBudget(input: { readonly promptTokens: number; readonly regionTokens: number; readonly codeTokens: number; readonly capacity: number; readonly overhead?: number }): FastApplyBudget {
  const margin = Math.max(64, Math.min(512, Math.floor(input.capacity / 4)));
  const available = input.capacity - margin;
  const promptTokens = input.promptTokens + (input.overhead ?? 64);
  const maxTokens = Math.ceil(input.regionTokens * 1.15 + input.codeTokens + 32);
  const reserve = Math.max(1, Math.min(maxTokens, Math.floor(input.capacity / 4)));
  const fits = promptTokens + maxTokens <= available && promptTokens + reserve <= available;
  return { fits, promptTokens, maxTokens, available };
}

/** The file's new text: the lines before the region, the rewrite, the lines after. */
export function spliceRegion(text: string, region: Region, code: string): string {
  const file = toLines(text);
  const rewritten = code === "" ? [] : code.replace(/\r\n/g, "\n").split("\n");
  const lines = [...file.lines.slice(0, region.start), ...rewritten, ...file.lines.slice(region.end)];
  return lines.length === 0 ? "" : lines.join(file.eol) + (file.finalEol ? file.eol : "");
}

/** The region's text (its lines joined with "\n"). */
export function regionText(text: string, region: Region): string {
  return toLines(text).lines.slice(region.start, region.end).join("\n");
}
