// Which of the known volatile blocks (stable-prefix.ts, the ones our provider renders after the
// stable prefix) two recorded requests first differ in, found rather than assumed (issue 36):
// the first difference is looked up among the blocks of both texts; a block found there that
// the other request lacks or has with other content is taken out of both, and the first
// difference is looked for again, until it lies in no known block (content that varies and no
// marker names: a new block to list, or a real change such as the user's question) or the
// requests agree. Works on the rendered text, so it needs neither the template nor the model;
// token positions come from the recorded pieces, which join to the text.

import { findVolatileBlocks, type FoundBlock, type VolatileBlockName } from "../../extension/core/request-pool/stable-prefix";
import { commonPrefixLength } from "../../extension/core/chat-template";
import type { LoggedRequest } from "./request-log";

/** The one list of what follows once the known blocks are out of the way. */
export const THEN = ["identical", "appends", "ends", "differs"] as const;

export interface KnownBlocksAtDifference {
  /** The known blocks the first difference lay in, in the order they were taken out. */
  readonly blocks: readonly VolatileBlockName[];
  /**
   * With them taken out of both requests: the common prefix in tokens of the later request (its
   * tokens in the blocks not counted; ±1 where a cut splits a token).
   */
  readonly commonPrefix: number;
  /** The tokens of the later request without those blocks (same counting). */
  readonly tokensLater: number;
  /** After taking them out: the same; the later appends to the earlier; the later is the earlier cut short; or they differ. */
  readonly then: (typeof THEN)[number];
  /** With "differs": the later request's text from there (what no marker names). */
  readonly unknown?: { readonly before: string; readonly later: string; readonly earlier: string };
}

const WINDOW_CHARS = 48;

/** Undefined when a request's pieces do not join to its text (a token split inside a character): positions would be wrong. */
export function knownBlocksAtDifference(earlier: LoggedRequest, later: LoggedRequest): KnownBlocksAtDifference | undefined {
  const a = Located.of(earlier);
  const b = Located.of(later);
  if (!a || !b) return undefined;
  const taken: VolatileBlockName[] = [];
  for (;;) {
    const sa = a.without(taken);
    const sb = b.without(taken);
    const d = commonPrefixLength(sa.text, sb.text);
    const inBlock = d < sb.text.length && d < sa.text.length ? volatileBlockAt(a, sa.original(d), b, sb.original(d), taken) : undefined;
    if (inBlock) {
      taken.push(inBlock);
      continue;
    }
    const atLater = sb.original(d);
    const head = { blocks: taken, commonPrefix: b.tokensBefore(atLater, taken), tokensLater: b.tokensBefore(later.text.length, taken) };
    if (d === sa.text.length && d === sb.text.length) return { ...head, then: "identical" };
    if (d === sa.text.length) return { ...head, then: "appends" };
    if (d === sb.text.length) return { ...head, then: "ends" };
    return {
      ...head,
      then: "differs",
      unknown: { before: sb.text.slice(Math.max(0, d - WINDOW_CHARS), d), later: sb.text.slice(d, d + WINDOW_CHARS), earlier: sa.text.slice(d, d + WINDOW_CHARS) },
    };
  }
}

/** A block, not taken yet, holding offset `atB` of `b` (or `atA` of `a`) whose content the other request does not share. */
function volatileBlockAt(a: Located, atA: number, b: Located, atB: number, taken: readonly VolatileBlockName[]): VolatileBlockName | undefined {
  const holding = [...b.blocksAt(atB), ...a.blocksAt(atA)].filter((block) => !taken.includes(block.name));
  return holding.find((block) => a.text(block.name) !== b.text(block.name))?.name;
}

/** One request's text with its known blocks, each with the whitespace before it (taken out with it, as stable-prefix.ts does). */
class Located {
  private constructor(
    private readonly request: LoggedRequest,
    private readonly blocks: readonly (FoundBlock & { readonly cutFrom: number })[],
    /** Where each token starts in the joined pieces: the text's offsets shifted by `lead`. */
    private readonly tokenStarts: readonly number[],
    /** Characters of the pieces before the text: a BOS the tokenizer added. */
    private readonly lead: number,
  ) {}

  static of(request: LoggedRequest): Located | undefined {
    const starts: number[] = [];
    let joined = 0;
    for (const token of request.tokens) {
      starts.push(joined);
      joined += request.pieces[token]!.length;
    }
    const lead = joined - request.text.length;
    const pieces = request.tokens.map((t) => request.pieces[t]).join("");
    if (lead < 0 || pieces.slice(lead) !== request.text) return undefined;
    const blocks = findVolatileBlocks(request.text).map((block) => ({ ...block, cutFrom: request.text.slice(0, block.from).replace(/\s+$/, "").length }));
    return new Located(request, blocks, starts, lead);
  }

  text(name: VolatileBlockName): string | undefined {
    return this.blocks.find((block) => block.name === name)?.text;
  }

  blocksAt(offset: number): FoundBlock[] {
    return this.blocks.filter((block) => offset >= block.cutFrom && offset < block.to);
  }

  /** The text without the named blocks, and a map from its offsets back to the text's. */
  without(names: readonly VolatileBlockName[]): { text: string; original: (offset: number) => number } {
    const cuts = this.blocks.filter((block) => names.includes(block.name));
    const kept: Array<{ from: number; to: number; at: number }> = [];
    let text = "";
    let from = 0;
    for (const cut of [...cuts, { cutFrom: this.request.text.length, to: this.request.text.length }]) {
      kept.push({ from, to: cut.cutFrom, at: text.length });
      text += this.request.text.slice(from, cut.cutFrom);
      from = cut.to;
    }
    const original = (offset: number) => {
      const span = kept.find((k) => offset < k.at + (k.to - k.from)) ?? kept[kept.length - 1]!;
      return span.from + (offset - span.at);
    };
    return { text, original };
  }

  /** Tokens that end at or before `offset` of the text (a BOS included), not counting those that start inside the named blocks. */
  tokensBefore(offset: number, names: readonly VolatileBlockName[]): number {
    const cuts = this.blocks.filter((block) => names.includes(block.name));
    const ends = this.tokenStarts.map((start, i) => this.tokenStarts[i + 1] ?? this.lead + this.request.text.length);
    return this.tokenStarts.filter((start, i) => ends[i]! <= offset + this.lead && !cuts.some((c) => start - this.lead >= c.cutFrom && start - this.lead < c.to)).length;
  }
}
