// Where recorded requests differ (issue 25 part 3): each request's kind (a new conversation has
// user messages and no reply yet; a request carrying tool results comes after a tool call;
// anything else is a follow-up), each consecutive pair, and each request against the first request of the
// conversation before its own, with the common prefix, the first difference as a share of the
// later request, a decoded window around it, and the identical runs after it. Requests are taken
// in the order they were recorded: a conversation is a new-conversation request and what follows
// it until the next one (true of one person driving the Chat view, as the bench does).
//
// Keeping the stable parts cached without changing what the model sees. A KV cell at position p
// is a function of every token at or before p (each layer attends to all earlier positions), so
// once two requests differ at position d, no cell of the later one after d can be taken from the
// other's cache exactly, however long the identical run that follows. Reusing such cells anyway
// (shifted positions, a few tokens recomputed, as CacheBlend-style methods do) changes the
// logits, which invariant 1 forbids. What remains exact:
// - Up to the first difference the prefix store already serves a new conversation (the longest
//   stored prefix, by 256-token blocks then exact tokens): the "common prefix" against the
//   previous conversation below is what it gets.
// - After a volatile segment, only a cache computed with the same volatile content helps. The
//   store keeps whole prompts, not only the part common to all, and stores a new one whenever it
//   holds at least 1,024 fewer of its tokens (prefix-session.ts), so a conversation whose volatile
//   content recurs (the same day's date, the same open editors) is served entirely, up to its 8
//   most recent variants. The cost is a whole cache per variant (16k tokens of Qwen2.5-Coder-1.5B
//   in F16 are ~450 MiB); storing one shared head up to d and, per variant, only the cells after
//   it would divide that, but needs snapshots of a range of cells, which our backends do not write.
// - Moving the volatile content after the stable content (a block after the tool schemas
//   rather than before them) turns the identical runs into common prefix; the model then sees
//   the same text in another order. Our provider does it for the blocks it knows by their
//   markers (core/request-pool/stable-prefix.ts, issue 36). Each comparison names the known
//   blocks its first difference lies in and where the requests differ with them taken out
//   (known-blocks.ts): content there that no marker names is the next block to list.
// - Within a conversation, a block re-rendered in every request (context attached only to the
//   latest message) rewinds the session to it and is prefilled from there, exactly; the same
//   numbers show how much that costs per request.

import type { RequestRole } from "../../extension/core/request-pool/request-shape";
import { PREFIX_BLOCK_TOKENS } from "../../extension/core/request-pool/prefix-blocks";
import type { OutcomeRecord, RecordedMessage, RequestRecord } from "../../extension/core/request-pool/request-record";
import { knownBlocksAtDifference, type KnownBlocksAtDifference } from "./known-blocks";
import type { LoggedRequest, RequestLog } from "./request-log";
import { alignTokens, type StableRun, type VolatileSegment } from "./token-alignment";

export const REQUEST_KINDS = ["new", "follow-up", "after-tool"] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

/** The one list of what a request is compared with. */
export const COMPARISON_KINDS = ["consecutive", "previous-conversation"] as const;
export type ComparisonKind = (typeof COMPARISON_KINDS)[number];

export interface AnalysisOptions {
  /** Identical runs after the first difference shorter than this are part of the volatile segment (default 32). */
  readonly minStableRun?: number;
  /** Diff effort cap (token edits) per pair (default 4,096). */
  readonly maxEdits?: number;
  /** Tokens decoded on each side of a first difference (default 12). */
  readonly windowTokens?: number;
  /** Identical tokens after the first difference that make "volatile content before stable content" (default one prefix block, 256). */
  readonly minStableAfter?: number;
}

export interface AnalyzedRequest {
  /** 1-based, in recording order: how the report names it. */
  readonly index: number;
  readonly id: string;
  readonly at: string;
  readonly model: string;
  readonly kind: RequestKind;
  readonly conversation: number;
  readonly roles: readonly RequestRole[];
  readonly tools: number;
  readonly tokens: number;
  readonly outcome?: Omit<OutcomeRecord, "kind" | "format" | "id">;
  /** Known blocks the provider moved after the stable prefix, and where to (absent: rendered as sent). */
  readonly layout?: RequestRecord["layout"];
}

export interface DifferenceWindow {
  /** The shared tokens just before the first difference. */
  readonly before: string;
  /** From the first difference on, in each request ("" where it ended). */
  readonly earlier: string;
  readonly later: string;
}

export interface DescribedSegment extends VolatileSegment {
  readonly earlierText: string;
  readonly laterText: string;
}

export interface RequestComparison {
  readonly kind: ComparisonKind;
  readonly earlier: number;
  readonly later: number;
  readonly tokensEarlier: number;
  readonly tokensLater: number;
  readonly commonPrefix: number;
  /** commonPrefix ÷ tokensLater: the share of the later request a cache of the earlier serves. */
  readonly sharedFraction: number;
  readonly identical: boolean;
  readonly extendsEarlier: boolean;
  /** Leading messages with the same role and content (by hash). */
  readonly leadingIdenticalMessages: number;
  readonly sameTools: boolean;
  readonly window?: DifferenceWindow;
  readonly stableRuns: readonly StableRun[];
  readonly identicalAfterFirstDifference: number;
  readonly volatile: readonly DescribedSegment[];
  /** False when the diff gave up (over maxEdits): stableRuns hold only the common suffix. */
  readonly aligned: boolean;
  /**
   * When they differ: the known volatile blocks (stable-prefix.ts) the first difference lies in,
   * and where the requests differ with those taken out (known-blocks.ts).
   */
  readonly knownBlocks?: KnownBlocksAtDifference;
}

/** A comparison whose first difference is followed by at least `minStableAfter` identical tokens. */
export interface VolatileBeforeStable {
  readonly comparison: ComparisonKind;
  readonly earlier: number;
  readonly later: number;
  readonly firstDifference: number;
  readonly tokensLater: number;
  readonly identicalAfter: number;
  readonly longestRun: StableRun;
  /** Tokens of the later request in volatile segments (what differs, all told). */
  readonly volatileTokens: number;
}

export interface RequestAnalysis {
  readonly file: string;
  readonly requests: readonly AnalyzedRequest[];
  readonly consecutive: readonly RequestComparison[];
  readonly againstPreviousConversation: readonly RequestComparison[];
  readonly volatileBeforeStable: readonly VolatileBeforeStable[];
}

/** Nothing answered yet is a new conversation, however many user messages it opens with (VS Code's Agent mode sends its environment as one). */
export function requestKindOf(messages: readonly Pick<RecordedMessage, "role">[]): RequestKind {
  if (messages.some((m) => m.role === "tool")) return "after-tool";
  return messages.some((m) => m.role === "user") && !messages.some((m) => m.role === "assistant") ? "new" : "follow-up";
}

export function analyzeRequests(log: RequestLog, options: AnalysisOptions = {}): RequestAnalysis {
  const logged = log.requests;
  const kinds = logged.map((r) => requestKindOf(r.messages));
  /** Index (0-based) of each conversation's first request; the log's first request starts one whatever its kind. */
  const starts: number[] = [];
  const conversationOf = kinds.map((kind, i) => {
    if (i === 0 || kind === "new") starts.push(i);
    return starts.length;
  });
  const requests = logged.map(
    (r, i): AnalyzedRequest => ({
      index: i + 1,
      id: r.id,
      at: r.at,
      model: r.model,
      kind: kinds[i]!,
      conversation: conversationOf[i]!,
      roles: r.messages.map((m) => m.role),
      tools: r.tools.length,
      tokens: r.tokens.length,
      ...(r.outcome ? { outcome: outcomeOf(r.outcome) } : {}),
      ...(r.layout ? { layout: r.layout } : {}),
    }),
  );
  const compare = (kind: ComparisonKind, a: number, b: number) => compareRequests(kind, logged, a, b, options);
  const consecutive = logged.slice(1).map((_, i) => compare("consecutive", i, i + 1));
  const againstPreviousConversation = logged.flatMap((_, i) => {
    const conversation = conversationOf[i]!;
    return conversation < 2 ? [] : [compare("previous-conversation", starts[conversation - 2]!, i)];
  });
  const minAfter = options.minStableAfter ?? PREFIX_BLOCK_TOKENS;
  const volatileBeforeStable = [...consecutive, ...againstPreviousConversation]
    .filter((c) => c.stableRuns.length > 0 && c.identicalAfterFirstDifference >= minAfter)
    .map((c) => ({
      comparison: c.kind,
      earlier: c.earlier,
      later: c.later,
      firstDifference: c.commonPrefix,
      tokensLater: c.tokensLater,
      identicalAfter: c.identicalAfterFirstDifference,
      longestRun: c.stableRuns.reduce((best, run) => (run.length > best.length ? run : best)),
      volatileTokens: c.volatile.reduce((sum, s) => sum + s.lengthLater, 0),
    }));
  return { file: log.file, requests, consecutive, againstPreviousConversation, volatileBeforeStable };
}

const SEGMENT_TEXT_TOKENS = 24;

function compareRequests(kind: ComparisonKind, logged: readonly LoggedRequest[], a: number, b: number, options: AnalysisOptions): RequestComparison {
  const earlier = logged[a]!;
  const later = logged[b]!;
  const alignment = alignTokens(earlier.tokens, later.tokens, options);
  const at = alignment.commonPrefix;
  const w = options.windowTokens ?? 12;
  let leading = 0;
  while (leading < earlier.messages.length && leading < later.messages.length && sameMessage(earlier.messages[leading]!, later.messages[leading]!)) leading++;
  return {
    kind,
    earlier: a + 1,
    later: b + 1,
    tokensEarlier: earlier.tokens.length,
    tokensLater: later.tokens.length,
    commonPrefix: at,
    sharedFraction: later.tokens.length === 0 ? 1 : Math.round((at / later.tokens.length) * 1000) / 1000,
    identical: alignment.identical,
    extendsEarlier: alignment.extendsEarlier,
    leadingIdenticalMessages: leading,
    sameTools: earlier.toolsSha === later.toolsSha,
    ...(alignment.identical
      ? {}
      : { window: { before: decode(later, Math.max(0, at - w), at), earlier: decode(earlier, at, at + w), later: decode(later, at, at + w) } }),
    stableRuns: alignment.stableRuns,
    identicalAfterFirstDifference: alignment.identicalAfterFirstDifference,
    volatile: alignment.volatile.map((s) => ({
      ...s,
      earlierText: decode(earlier, s.atEarlier, s.atEarlier + Math.min(s.lengthEarlier, SEGMENT_TEXT_TOKENS)),
      laterText: decode(later, s.atLater, s.atLater + Math.min(s.lengthLater, SEGMENT_TEXT_TOKENS)),
    })),
    aligned: alignment.aligned,
    ...(alignment.identical ? {} : optional("knownBlocks", knownBlocksAtDifference(earlier, later))),
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function outcomeOf(o: OutcomeRecord): NonNullable<AnalyzedRequest["outcome"]> {
  return { at: o.at, ...(o.reply ? { reply: o.reply } : {}), ...(o.error ? { error: o.error } : {}) };
}

function sameMessage(x: RecordedMessage, y: RecordedMessage): boolean {
  return x.role === y.role && x.sha === y.sha && x.chars === y.chars;
}

/** Tokens [from, to) of a request as text, from its recorded pieces. */
export function decode(request: Pick<LoggedRequest, "tokens" | "pieces">, from: number, to: number): string {
  return request.tokens
    .slice(from, to)
    .map((token) => request.pieces[token] ?? `<${token}>`)
    .join("");
}
