// A model's markdown for VS Code's Chat (@stateful), with no image left in it: VS Code up to
// 1.136 could fetch a remote image before blocking it, and a reply steered by a workspace file
// can put data in an image's URL. The webview renders images as their alt text; this does the
// same to the text before it reaches the Chat view, as it streams.
//
// An inline image `![alt](…)` becomes its alt text (itself checked again, so an image in the
// alt goes too). Any other `![` (a reference image `![alt][ref]`, or text like Rust's `vec![`)
// gets a zero-width space after its `!`, so no renderer reads an image there; it looks the
// same. Fenced code blocks pass untouched (copying `vec![1]` from one must give `vec![1]`),
// but only while their extent is certain: a line on which renderers might disagree (a fence
// after a list or quote marker or indented 4+, a line starting with `<`, a line that leaves
// an indented fence's indentation, a closing fence with trailing tabs or mixed fence marks)
// turns fence tracking off for the rest of the reply, and from then on every `![` is changed,
// even in code. Inline code spans are not tracked: an image-like text in one is changed too,
// which is safe whatever the renderer decides. Text is held back only while undecided: a line
// start that may be a fence, a `!`, a backslash, an image up to MAX_IMAGE_CHARS.

const ZWSP = "\u200b";
/** How far ahead an image's `![alt](…)` is awaited before it is judged not to be one (also a held line start's limit). */
export const MAX_IMAGE_CHARS = 2048;

type FenceChar = "`" | "~";

interface Fence {
  readonly char: FenceChar;
  readonly length: number;
  readonly indent: number;
}

/** What a line start decides; undefined: wait for more of the line. */
type LineKind = { readonly kind: "open"; readonly fence: Fence } | { readonly kind: "close" | "code" | "text" | "taint" };

interface Step {
  readonly out: string;
  readonly used: number;
  /** Text that replaces what was used, processed next (an image's alt text). */
  readonly reinput?: string;
}

export class ImageFreeMarkdown {
  private input = "";
  private atLineStart = true;
  private fence: Fence | undefined;
  /** Fence tracking is off for the rest of the reply (see the file's header). */
  private tainted = false;
  /** The last character sent is an unescaped `!`: a `[` right after it would start an image. */
  private bareBang = false;
  /** The line being sent has more than indentation and list or quote markers. */
  private lineHasText = false;
  /** Characters the image look-ahead has read so far: at most MAX_IMAGE_CHARS + 1 per `![` (a test reads it). */
  readonly lookAhead = { chars: 0 };

  /** The part of the text seen so far that can be sent now. */
  push(text: string): string {
    this.input += text;
    return this.drain(false);
  }

  /** The rest, once the reply has ended. */
  end(): string {
    const out = this.drain(true);
    this.input = "";
    return out;
  }

  private drain(final: boolean): string {
    let out = "";
    while (this.input.length > 0) {
      const step = this.step(final);
      if (!step) break;
      out += step.out;
      this.noteSent(step.out);
      this.input = (step.reinput ?? "") + this.input.slice(step.used);
    }
    return out;
  }

  private noteSent(out: string): void {
    const newline = out.lastIndexOf("\n");
    if (newline >= 0) this.lineHasText = false;
    if (!this.lineHasText) this.lineHasText = !LINE_PREFIX.test(out.slice(newline + 1));
  }

  private step(final: boolean): Step | undefined {
    if (this.atLineStart && !this.tainted) return this.lineStart(final);
    if (this.fence) return this.restOfLine();
    return this.prose(final);
  }

  private lineStart(final: boolean): Step | undefined {
    const newline = this.input.indexOf("\n");
    const line = newline < 0 ? this.input : this.input.slice(0, newline);
    let kind = this.fence ? fenceLineKind(line, newline >= 0 || final, this.fence) : textLineKind(line, newline >= 0 || final);
    if (kind === undefined && line.length > MAX_IMAGE_CHARS) kind = { kind: "taint" };
    if (kind === undefined) return undefined;
    this.atLineStart = false;
    switch (kind.kind) {
      case "open":
        this.fence = kind.fence;
        return this.restOfLine();
      case "close":
        this.fence = undefined;
        return this.restOfLine();
      case "taint":
        this.tainted = true;
        this.fence = undefined;
        return { out: "", used: 0 };
      case "code":
      case "text":
        return { out: "", used: 0 };
    }
  }

  /** The line up to and including its newline, as it is (a fence line, or code). */
  private restOfLine(): Step {
    const newline = this.input.indexOf("\n");
    const used = newline < 0 ? this.input.length : newline + 1;
    this.atLineStart = newline >= 0;
    this.bareBang = false;
    return { out: this.input.slice(0, used), used };
  }

  private prose(final: boolean): Step | undefined {
    const s = this.input;
    const c = s[0];
    if (c === "\n") {
      this.atLineStart = true;
      return this.sent("\n", 1);
    }
    if (c === "\\") {
      if (s.length < 2 && !final) return undefined;
      // An escaped `!` or `[` is literal text and starts no image.
      return PUNCTUATION.test(s[1] ?? "") ? this.sent(s.slice(0, 2), 2) : this.sent("\\", 1);
    }
    if (c === "!") {
      if (s.length < 2 && !final) return undefined;
      if (s[1] !== "[") {
        this.bareBang = true;
        return { out: "!", used: 1 };
      }
      const image = inlineImage(s, this.lookAhead);
      if (image === "incomplete" && !final && s.length <= MAX_IMAGE_CHARS) return undefined;
      if (typeof image === "object") {
        // Its alt text, read again in its place, could start a line's fence where the image stood
        // (nothing but indentation before it) or bring a line break or fence marks: renderers
        // could then see a fence this class did not, so fence tracking ends here.
        if (!this.lineHasText || /[\n`~<]/.test(image.alt)) this.tainted = true;
        return { out: "", used: image.length, reinput: image.alt };
      }
      return this.sent(`!${ZWSP}`, 1);
    }
    if (c === "[") return this.sent(this.bareBang ? `${ZWSP}[` : "[", 1);
    const special = /[\n\\![]/.exec(s);
    const run = special ? special.index : s.length;
    return this.sent(s.slice(0, run), run);
  }

  private sent(out: string, used: number): Step {
    this.bareBang = false;
    return { out, used };
  }
}

const PUNCTUATION = /^[!-/:-@[-`{-~]$/;
/** Indentation and list or quote markers only. */
const LINE_PREFIX = /^[ \t>*+\-\d.)]*$/;
/** A line that may be (or contain, after list or quote markers) a fence, as far as it has arrived. */
const FENCE_PREFIX_SO_FAR = /^[ \t]*(?:(?:[>*+-]|\d{1,9}[.)])[ \t]*)*(?:\d{1,9}|`+|~+)?$/;
const FENCE_AFTER_MARKERS = /^[ \t]*(?:(?:[>*+-]|\d{1,9}[.)])[ \t]*)*(?:`{3,}|~{3,})/;
const OPENER = /^( {0,3})(`{3,}|~{3,})(.*)$/;

/** A line outside a fence: an opener, text, or a line renderers might read differently. */
function textLineKind(line: string, complete: boolean): LineKind | undefined {
  if (/^ {0,3}</.test(line)) return { kind: "taint" }; // an HTML block: where it ends differs between renderers
  if (!complete && FENCE_PREFIX_SO_FAR.test(line)) return undefined;
  if (!FENCE_AFTER_MARKERS.test(line)) return { kind: "text" };
  if (!complete) return undefined; // a fence's info string decides (a backtick in it: not a fence)
  const open = OPENER.exec(line);
  if (open) {
    const run = open[2]!;
    const char = run[0] as FenceChar;
    if (char === "`" && open[3]!.includes("`")) return { kind: "text" };
    return { kind: "open", fence: { char, length: run.length, indent: open[1]!.length } };
  }
  return { kind: "taint" }; // after a list or quote marker, or indented 4+: inside a container, maybe
}

/** A line inside a fence: its closer, code, or a line renderers might read differently. */
function fenceLineKind(line: string, complete: boolean, fence: Fence): LineKind | undefined {
  if (!complete && /^[ \t]*[`~]*[ \t]*$/.test(line)) return undefined;
  const close = OPENER.exec(line);
  if (complete && close && close[2]![0] === fence.char && close[2]!.length >= fence.length) {
    const rest = close[3]!;
    if (/^ *$/.test(rest)) return { kind: "close" };
    if (/^[`~ \t]*$/.test(rest)) return { kind: "taint" }; // a closer to one renderer, code to another
  }
  if (fence.indent > 0 && line.trim() !== "") {
    // An indented fence may sit in a list item, which ends (and closes it) at a less indented line.
    const indent = columnsOf(line);
    if (indent < fence.indent) return { kind: "taint" };
    if (indent >= 4 && indent <= fence.indent + 3 && /^[ \t]*(`{3,}|~{3,})/.test(line)) return { kind: "taint" };
  }
  return { kind: "code" };
}

/** The columns of a line's leading whitespace (a tab moves to the next multiple of 4). */
function columnsOf(line: string): number {
  let columns = 0;
  for (const c of line) {
    if (c === " ") columns++;
    else if (c === "\t") columns += 4 - (columns % 4);
    else break;
  }
  return columns;
}

/**
 * `s` starts with `![`: the inline image there (its alt text and length), "none", or
 * "incomplete" (wait). Only the first MAX_IMAGE_CHARS + 1 characters are looked at, so a text
 * full of `![` costs that much per `![`, not the whole text.
 */
function inlineImage(text: string, read: { chars: number }): { readonly alt: string; readonly length: number } | "none" | "incomplete" {
  const s = text.length > MAX_IMAGE_CHARS + 1 ? text.slice(0, MAX_IMAGE_CHARS + 1) : text;
  read.chars += s.length;
  let depth = 0;
  let i = 1;
  for (; i < s.length; i++) {
    const c = s[i];
    if (c === "\\") i++;
    else if (c === "\n" && s[i + 1] === "\n") return "none"; // a paragraph ends first
    else if (c === "[") depth++;
    else if (c === "]" && --depth === 0) break;
  }
  if (i + 1 >= s.length) return "incomplete";
  if (s[i + 1] !== "(") return "none";
  const altEnd = i;
  let parens = 0;
  for (i = altEnd + 1; i < s.length; i++) {
    const c = s[i];
    if (c === "\\") i++;
    else if (c === "\n" && s[i + 1] === "\n") return "none";
    else if (c === "(") parens++;
    else if (c === ")" && --parens === 0) return { alt: s.slice(2, altEnd), length: i + 1 };
  }
  return "incomplete";
}
