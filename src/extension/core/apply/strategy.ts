// How a code block becomes a change to a file, cheapest first:
// 1. the whole file: the file is new or empty, the block starts and ends where the file does,
//    or it holds most of the file's lines (more readily when the reply said "the whole file");
// 2. anchored: the block's first and last lines (a few lines when one is too plain, e.g. "}")
//    match exactly one region of the file: that region is replaced, re-indented to its place;
// 3. symbol-anchored: the block defines one symbol (function, class, method…) and the
//    document's symbols (from its language's symbol provider, passed in) have exactly one of
//    that name: its range is replaced;
// 4. otherwise fast apply: the model rewrites a region (or the file) with the change.
// Some cases refuse with a clear reason and change nothing: the anchors match several
// regions, or they matched what the model saw but the file changed since (both offer fast
// apply), or the block is empty.

import { blockLines, fromLines, indentOf, isDistinctive, isPreamble, toLines, type Region } from "./lines";

/** One document symbol, flattened: lines are 0-based, `end` inclusive (as VS Code ranges). */
export interface SymbolRange {
  readonly name: string;
  readonly startLine: number;
  readonly endLine: number;
  /** 0 for top-level symbols, 1 for their children… */
  readonly depth: number;
}

export type ApplyStrategy = "whole" | "anchored" | "symbol" | "fast";

export type ApplyPlan =
  /** The file's new text; `region` is the part of the old text that was replaced. */
  | { readonly kind: "edit"; readonly strategy: Exclude<ApplyStrategy, "fast">; readonly text: string; readonly region: Region }
  /** The file already holds exactly this. */
  | { readonly kind: "unchanged"; readonly strategy: Exclude<ApplyStrategy, "fast"> }
  /** Let the model rewrite `region` (lines of the current text) with the block. */
  | { readonly kind: "fast"; readonly region: Region; readonly why: string }
  | {
      readonly kind: "refused";
      readonly reason: "ambiguous" | "changed" | "empty";
      readonly message: string;
      /** Fast apply may still do it (the user is asked). */
      readonly fastRegion?: Region;
    };

export interface PlanInput {
  /** The file's current text; undefined for a file that does not exist yet. */
  readonly original: string | undefined;
  readonly code: string;
  /** The reply said the block is the whole file. */
  readonly saysWholeFile?: boolean;
  readonly symbols?: readonly SymbolRange[];
  /** The file as the model last saw it (the chat's context), when it did. */
  readonly seen?: string;
  /** Skip straight to fast apply (the user asked for it). */
  readonly forceFast?: boolean;
  /** For messages. */
  readonly label?: string;
}

export function planApply(input: PlanInput): ApplyPlan {
  const block = blockLines(input.code);
  const label = input.label ?? "the file";
  if (block.length === 0) return { kind: "refused", reason: "empty", message: "The code block is empty: nothing to apply." };
  if (input.original === undefined || input.original.trim() === "") {
    const eol = input.original !== undefined && input.original.includes("\r\n") ? "\r\n" : "\n";
    return { kind: "edit", strategy: "whole", text: fromLines(block, eol, true), region: { start: 0, end: toLines(input.original ?? "").lines.length } };
  }
  const file = toLines(input.original);
  const all: Region = { start: 0, end: file.lines.length };
  if (input.forceFast) return { kind: "fast", region: all, why: "asked for" };

  const edit = (strategy: Exclude<ApplyStrategy, "fast">, region: Region, replacement: readonly string[]): ApplyPlan => {
    const lines = [...file.lines.slice(0, region.start), ...replacement, ...file.lines.slice(region.end)];
    const text = fromLines(lines, file.eol, file.finalEol);
    return text === input.original ? { kind: "unchanged", strategy } : { kind: "edit", strategy, text, region };
  };

  // "// ... existing code ..." stands for lines the block leaves out: only a model can merge that.
  if (hasElision(block)) return { kind: "fast", region: fastRegion(file.lines, block, input.symbols ?? []) ?? all, why: "the block leaves lines out" };
  if (isWholeFile(file.lines, block, input.saysWholeFile ?? false)) return edit("whole", all, block);

  const regions = anchoredRegions(file.lines, block);
  if (regions.length === 1) return edit("anchored", regions[0]!, reindent(block, file.lines[regions[0]!.start]!));
  if (regions.length > 1) {
    return {
      kind: "refused",
      reason: "ambiguous",
      message: `No unique place for the block in ${label}: its first and last lines match ${regions.length} regions (lines ${regions
        .slice(0, 3)
        .map((r) => `${r.start + 1}–${r.end}`)
        .join(", ")}${regions.length > 3 ? ", …" : ""}).`,
      fastRegion: all,
    };
  }

  const symbol = symbolRegion(file.lines, block, input.symbols ?? []);
  if (symbol) return edit("symbol", symbol, reindent(block, file.lines[firstDefinitionLine(file.lines, symbol)]!, definitionIndex(block)));

  if (input.seen !== undefined && input.seen !== input.original) {
    const seen = toLines(input.seen).lines;
    if (anchoredRegions(seen, block).length === 1 || isWholeFile(seen, block, input.saysWholeFile ?? false)) {
      return {
        kind: "refused",
        reason: "changed",
        message: `${label} changed since the reply: the block's first and last lines matched the file the model saw, and no longer match it.`,
        fastRegion: all,
      };
    }
  }
  return { kind: "fast", region: fastRegion(file.lines, block, input.symbols ?? []) ?? all, why: "no anchor" };
}

const ELISION = /^(?:\/\/|#|--|\/\*|<!--|;)?\s*(?:\.\.\.|…|\[\.\.\.\])\s*(?:\(?\s*(?:rest|existing|other|remaining|unchanged|previous|more|same)\b[^\n]*)?(?:\*\/|-->)?$|^(?:\/\/|#|--|\/\*)\s*(?:\.\.\.\s*)?(?:rest of|existing|other|remaining|unchanged|previous|same as before|keep the)\b.*(?:code|unchanged|methods|functions|lines|file|as before|implementation)\b.*$/i;

/** The block leaves lines out ("// ...", "# ... rest of the code ...", "..."). */
export function hasElision(block: readonly string[]): boolean {
  return block.some((line) => ELISION.test(line.trim()));
}

/** The block is the file: same first and last lines, or most of the file's lines are in it. */
function isWholeFile(file: readonly string[], block: readonly string[], saysSo: boolean): boolean {
  const first = file.findIndex((l) => l.trim() !== "");
  let last = file.length - 1;
  while (last >= 0 && file[last]!.trim() === "") last--;
  if (first < 0) return true;
  const startsAndEndsLikeFile = file[first]!.trim() === block[0]!.trim() && file[last]!.trim() === block[block.length - 1]!.trim() && block.length >= 2;
  // Starting and ending like the file only counts when the ends are not commonplace lines
  // ("}" ends every function), or the block is as long as most of the file.
  if (startsAndEndsLikeFile && (isDistinctive(file[first]!) || block.length * 2 >= file.length)) {
    if (anchoredRegions(file, block).every((r) => r.start <= first && r.end > last)) return true;
  }
  const distinct = file.filter(isDistinctive).map((l) => l.trim());
  if (distinct.length === 0) return false;
  const inBlock = new Set(block.map((l) => l.trim()));
  const coverage = distinct.filter((l) => inBlock.has(l)).length / distinct.length;
  const lengthRatio = block.length / file.length;
  return saysSo ? coverage >= 0.3 && lengthRatio >= 0.5 : coverage >= 0.6 && lengthRatio >= 0.6;
}

/** How many lines at one end of the block make an anchor: enough to say something (at most 3). */
function anchorSize(lines: readonly string[]): number {
  let text = "";
  for (let k = 1; k <= Math.min(3, lines.length); k++) {
    text += lines[k - 1]!;
    if (isDistinctive(text) && (text.replace(/\s/g, "").length >= 8 || k === lines.length)) return k;
  }
  return Math.min(3, lines.length);
}

function matchesAt(file: readonly string[], at: number, anchor: readonly string[]): boolean {
  if (at < 0 || at + anchor.length > file.length) return false;
  return anchor.every((line, k) => file[at + k]!.trim() === line.trim());
}

/**
 * Every region the block's head and tail anchor: for each place the head matches, the first
 * place after it where the tail matches at the same indentation relative to the head as in
 * the block (so an inner "}" does not end a function).
 */
export function anchoredRegions(file: readonly string[], block: readonly string[]): Region[] {
  if (block.length < 2) return [];
  // The head grows over plain lines ("}", "else {") until it says something; the tail is the
  // last line alone (growing it would reach into the changed lines), a plain one placed by
  // its indentation relative to the head.
  const kh = Math.min(anchorSize(block), block.length - 1);
  const kt = 1;
  const head = block.slice(0, kh);
  const tail = block.slice(block.length - kt);
  const relative = indentOf(tail[0]!).length - indentOf(head[0]!).length;
  const regions: Region[] = [];
  for (let i = 0; i < file.length; i++) {
    if (!matchesAt(file, i, head)) continue;
    for (let j = i + kh; j + kt <= file.length; j++) {
      if (!matchesAt(file, j, tail)) continue;
      if (tail[0]!.trim() !== "" && indentOf(file[j]!).length - indentOf(file[i]!).length !== relative) continue;
      regions.push({ start: i, end: j + kt });
      break;
    }
  }
  return regions;
}

/** Shifts the block so its line `at` has the indentation of `target` (the file's line it replaces). */
function reindent(block: readonly string[], target: string, at = 0): string[] {
  const want = indentOf(target);
  const have = indentOf(block[at]!);
  if (want === have) return [...block];
  if (want.startsWith(have)) {
    const add = want.slice(have.length);
    return block.map((line) => (line.trim() === "" ? line : add + line));
  }
  if (have.startsWith(want)) {
    const cut = have.length - want.length;
    const removable = block.every((line) => line.trim() === "" || indentOf(line).length >= cut);
    return removable ? block.map((line) => line.slice(Math.min(cut, indentOf(line).length))) : [...block];
  }
  return [...block];
}

const DEFINITIONS: readonly RegExp[] = [
  /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/,
  /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/,
  /^(?:export\s+)?(?:declare\s+)?(?:interface|type|enum|namespace|module)\s+([A-Za-z_$][\w$]*)/,
  /^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=/,
  /^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/,
  /^class\s+([A-Za-z_]\w*)\s*[(:]/,
  /^(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+([A-Za-z_]\w*)/,
  /^(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|trait|union|mod)\s+([A-Za-z_]\w*)/,
  /^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\(/,
  /^(?:(?:public|private|protected|internal|static|final|abstract|async|override|readonly|virtual|get|set)\s+)*([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\([^)]*\)\s*(?::\s*[^{]+)?\{\s*$/,
];

const NOT_NAMES = new Set(["if", "for", "while", "switch", "catch", "return", "function", "else", "do", "try", "with", "match", "when"]);

/** Index of the block's first line that is not a comment, decorator or blank. */
function definitionIndex(block: readonly string[]): number {
  const k = block.findIndex((line) => line.trim() !== "" && !isPreamble(line));
  return k < 0 ? 0 : k;
}

/** The name the block defines (its first definition line), if it is one definition. */
export function definedSymbol(block: readonly string[]): string | undefined {
  const line = block[definitionIndex(block)]?.trim() ?? "";
  for (const pattern of DEFINITIONS) {
    const name = pattern.exec(line)?.[1];
    if (name && !NOT_NAMES.has(name)) return name;
  }
  return undefined;
}

function symbolsNamed(symbols: readonly SymbolRange[], name: string, block: readonly string[]): SymbolRange[] {
  const named = symbols.filter((s) => s.name === name || s.name.startsWith(`${name}(`) || s.name.endsWith(`.${name}`));
  // A block written at the top level means a top-level symbol when there is one.
  const top = named.filter((s) => s.depth === 0);
  return indentOf(block[definitionIndex(block)]!) === "" && top.length > 0 ? top : named;
}

function symbolRegion(file: readonly string[], block: readonly string[], symbols: readonly SymbolRange[]): Region | undefined {
  const name = definedSymbol(block);
  if (!name) return undefined;
  const found = symbolsNamed(symbols, name, block);
  if (found.length !== 1) return undefined;
  const symbol = found[0]!;
  if (symbol.startLine < 0 || symbol.endLine >= file.length || symbol.endLine < symbol.startLine) return undefined;
  let start = symbol.startLine;
  // The block brings its own comments or decorators: replace the file's above the symbol too.
  if (definitionIndex(block) > 0) while (start > 0 && isPreamble(file[start - 1]!)) start--;
  return { start, end: symbol.endLine + 1 };
}

function firstDefinitionLine(file: readonly string[], region: Region): number {
  for (let k = region.start; k < region.end; k++) if (file[k]!.trim() !== "" && !isPreamble(file[k]!)) return k;
  return region.start;
}

/**
 * A narrower region for fast apply: the one symbol the block's head line starts (or the block
 * names), when the document's symbols say where it ends. Undefined: the whole file.
 */
function fastRegion(file: readonly string[], block: readonly string[], symbols: readonly SymbolRange[]): Region | undefined {
  const name = definedSymbol(block);
  const named = name ? symbolsNamed(symbols, name, block) : [];
  if (named.length === 1 && named[0]!.endLine < file.length) return widen({ start: named[0]!.startLine, end: named[0]!.endLine + 1 }, file.length, block.length);
  const head = block[definitionIndex(block)]!.trim();
  const at = file.flatMap((line, i) => (isDistinctive(head) && line.trim() === head ? [i] : []));
  if (at.length !== 1) return undefined;
  const around = symbols.filter((s) => s.startLine <= at[0]! && s.endLine >= at[0]!).sort((a, b) => b.depth - a.depth)[0];
  return around && around.endLine < file.length ? widen({ start: around.startLine, end: around.endLine + 1 }, file.length, block.length) : undefined;
}

/** A few lines of context on either side, so the model sees where the region sits. */
function widen(region: Region, length: number, blockLength: number): Region {
  const extra = Math.max(2, Math.ceil(blockLength / 4));
  return { start: Math.max(0, region.start - extra), end: Math.min(length, region.end + extra) };
}
