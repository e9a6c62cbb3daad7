// The request log's format: one JSON line per request the pool is asked to serve (what was
// asked: roles, tools, the rendered tokens and text) and a second line with the same id for how
// it ended (the pool's reply, or the error it was refused with). Two lines, not one, because the
// request is written before it is served: a request refused over capacity, or one whose
// extension host died mid-reply, is still on record. shell/lm/request-recorder.ts writes it when
// STATEFUL_CHAT_RECORD_REQUESTS names a folder; tools/request-analysis/ reads it to find where
// consecutive requests differ (issue 25).

import { createHash } from "node:crypto";
import type { Tokenizer } from "../engine";
import { toStatefulChatError } from "../errors";
import type { RenderedRequest } from "./request-messages";
import { REQUEST_ROLES, type RequestMessage, type RequestRole, type ToolSpec } from "./request-shape";
import type { PoolReply } from "./request-pool";
import { STABLE_PREFIX_PLACEMENTS, type StablePrefixPlacement } from "./stable-prefix";

/** The file in the recording folder. */
export const REQUEST_LOG_FILE = "requests.jsonl";
/** Bumped when a line's shape changes; a reader refuses other formats. */
const REQUEST_RECORD_FORMAT = 1;

export interface RecordedMessage {
  readonly role: RequestRole;
  readonly chars: number;
  /** First 16 hex digits of the content's SHA-256: which messages two requests share. */
  readonly sha: string;
  /** Assistant messages: the tools it called, by name. */
  readonly toolCalls?: readonly string[];
  /** Tool messages: the call this answers. */
  readonly toolCallId?: string;
}

export interface RequestRecord {
  readonly kind: "request";
  readonly format: typeof REQUEST_RECORD_FORMAT;
  /** Unique within the log (the writer's process and a counter); its outcome line carries it too. */
  readonly id: string;
  readonly at: string;
  readonly model: string;
  readonly messages: readonly RecordedMessage[];
  readonly tools: readonly string[];
  /** SHA-256 prefix of the tool specs (names, descriptions, schemas): whether two requests offer the same tools. */
  readonly toolsSha: string;
  /** What the pool is asked to serve: BOS and the template's rendering, tokenized. */
  readonly tokens: readonly number[];
  /** The template's rendering (without a BOS the tokenizer adds). */
  readonly text: string;
  /**
   * Each distinct token's text, decoded alone: enough to show any window of `tokens` without the
   * model's tokenizer (a character split across tokens shows as U+FFFD there, never in `text`).
   */
  readonly pieces: Readonly<Record<string, string>>;
  /**
   * How the provider laid the request out (stable-prefix-render.ts) when it moved known blocks;
   * absent: as sent. Block names as strings: a log from a version that knows more blocks still reads.
   */
  readonly layout?: { readonly placement: StablePrefixPlacement; readonly moved: readonly string[] };
}

/** The pool's reply, as recorded (literals kept as strings: the log is read by people). */
interface RecordedReply {
  readonly sessionId: string;
  readonly cached: number;
  readonly prefilled: number;
  readonly rewound: number;
  readonly generated: number;
  readonly stopReason: string;
  readonly position: number;
  readonly capacity: number;
  readonly restored?: string;
  readonly restoredTokens?: number;
  readonly parked?: string;
  /** From the request (rendered, before it waited in the queue) to its first reply token; absent when no token came. */
  readonly firstTokenMs?: number;
}

export interface OutcomeRecord {
  readonly kind: "outcome";
  readonly format: typeof REQUEST_RECORD_FORMAT;
  readonly id: string;
  readonly at: string;
  /** Exactly one of `reply` and `error`. */
  readonly reply?: RecordedReply;
  readonly error?: { readonly code: string; readonly message: string };
}

export type RequestLogLine = RequestRecord | OutcomeRecord;

export function requestRecordOf(input: {
  readonly id: string;
  readonly at: Date;
  readonly model: string;
  readonly messages: readonly RequestMessage[];
  readonly tools: readonly ToolSpec[];
  readonly rendered: RenderedRequest;
  /** The text of one token; `requestRecordOf` asks once per distinct token. */
  readonly piece: (token: number) => string;
}): RequestRecord {
  const pieces: Record<string, string> = {};
  for (const token of input.rendered.tokens) pieces[token] ??= input.piece(token);
  return {
    kind: "request",
    format: REQUEST_RECORD_FORMAT,
    id: input.id,
    at: input.at.toISOString(),
    model: input.model,
    messages: input.messages.map((m) => ({
      role: m.role,
      chars: m.content.length,
      sha: sha16(m.content),
      ...(m.toolCalls && m.toolCalls.length > 0 ? { toolCalls: m.toolCalls.map((call) => call.name) } : {}),
      ...(m.toolCallId !== undefined ? { toolCallId: m.toolCallId } : {}),
    })),
    tools: input.tools.map((tool) => tool.name),
    toolsSha: sha16(JSON.stringify(input.tools)),
    tokens: input.rendered.tokens,
    text: input.rendered.text,
    pieces,
    ...(input.rendered.layout && input.rendered.layout !== "as-sent" ? { layout: { placement: input.rendered.layout, moved: input.rendered.moved ?? [] } } : {}),
  };
}

/** A tokenizer's text for one token, for `requestRecordOf`'s `piece`. */
export function tokenPiece(tokenizer: Tokenizer): (token: number) => string {
  return (token) => tokenizer.decode([token]);
}

export function outcomeRecordOf(
  id: string,
  at: Date,
  result: { readonly reply: PoolReply; readonly firstTokenMs?: number } | { readonly error: unknown },
): OutcomeRecord {
  const head = { kind: "outcome", format: REQUEST_RECORD_FORMAT, id, at: at.toISOString() } as const;
  if ("error" in result) {
    const typed = toStatefulChatError(result.error);
    return { ...head, error: { code: typed.code, message: typed.message } };
  }
  const r = result.reply;
  return {
    ...head,
    reply: {
      sessionId: r.sessionId,
      cached: r.cached,
      prefilled: r.prefilled,
      rewound: r.rewound,
      generated: r.generated,
      stopReason: r.stopReason,
      position: r.position,
      capacity: r.capacity,
      ...(r.restored !== undefined ? { restored: r.restored } : {}),
      ...(r.restoredTokens !== undefined ? { restoredTokens: r.restoredTokens } : {}),
      ...(r.parked !== undefined ? { parked: r.parked } : {}),
      ...(result.firstTokenMs !== undefined ? { firstTokenMs: result.firstTokenMs } : {}),
    },
  };
}

function sha16(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** A line that is not a request log line of this format; the message says which field and why. */
export class RequestRecordError extends Error {}

/** One line of the log, validated field by field. */
export function parseRequestLogLine(line: string): RequestLogLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new RequestRecordError(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const o = objectOf(value, "the line");
  if (o.format !== REQUEST_RECORD_FORMAT) throw new RequestRecordError(`format ${JSON.stringify(o.format)}, this reader knows ${REQUEST_RECORD_FORMAT}`);
  const id = text(o, "id");
  const at = text(o, "at");
  if (o.kind === "request") {
    const tokens = arrayOf(o.tokens, "tokens").map((t, i) => tokenAt(t, i));
    const pieces = objectOf(o.pieces, "pieces");
    for (const token of new Set(tokens)) if (typeof pieces[token] !== "string") throw new RequestRecordError(`pieces has no text for token ${token}`);
    return {
      kind: "request",
      format: REQUEST_RECORD_FORMAT,
      id,
      at,
      model: text(o, "model"),
      messages: arrayOf(o.messages, "messages").map((m, i) => messageOf(m, i)),
      tools: arrayOf(o.tools, "tools").map((t, i) => stringAt(t, `tools[${i}]`)),
      toolsSha: text(o, "toolsSha"),
      tokens,
      text: text(o, "text"),
      pieces: pieces as Record<string, string>,
      ...(o.layout !== undefined ? { layout: layoutOf(o.layout) } : {}),
    };
  }
  if (o.kind === "outcome") {
    if ((o.reply === undefined) === (o.error === undefined)) throw new RequestRecordError("an outcome has exactly one of reply and error");
    if (o.error !== undefined) {
      const e = objectOf(o.error, "error");
      return { kind: "outcome", format: REQUEST_RECORD_FORMAT, id, at, error: { code: text(e, "code", "error.code"), message: text(e, "message", "error.message") } };
    }
    const r = objectOf(o.reply, "reply");
    const reply: RecordedReply = {
      sessionId: text(r, "sessionId", "reply.sessionId"),
      cached: count(r, "cached"),
      prefilled: count(r, "prefilled"),
      rewound: count(r, "rewound"),
      generated: count(r, "generated"),
      stopReason: text(r, "stopReason", "reply.stopReason"),
      position: count(r, "position"),
      capacity: count(r, "capacity"),
      ...(r.restored !== undefined ? { restored: text(r, "restored", "reply.restored") } : {}),
      ...(r.restoredTokens !== undefined ? { restoredTokens: count(r, "restoredTokens") } : {}),
      ...(r.parked !== undefined ? { parked: text(r, "parked", "reply.parked") } : {}),
      ...(r.firstTokenMs !== undefined ? { firstTokenMs: count(r, "firstTokenMs") } : {}),
    };
    return { kind: "outcome", format: REQUEST_RECORD_FORMAT, id, at, reply };
  }
  throw new RequestRecordError(`kind ${JSON.stringify(o.kind)}: expected "request" or "outcome"`);
}

function messageOf(value: unknown, index: number): RecordedMessage {
  const where = `messages[${index}]`;
  const m = objectOf(value, where);
  const role = m.role;
  if (!(REQUEST_ROLES as readonly unknown[]).includes(role)) throw new RequestRecordError(`${where}.role ${JSON.stringify(role)}: expected one of ${REQUEST_ROLES.join(", ")}`);
  const chars = m.chars;
  if (!isCount(chars)) throw new RequestRecordError(`${where}.chars must be a whole number ≥ 0`);
  return {
    role: role as RequestRole,
    chars,
    sha: text(m, "sha", `${where}.sha`),
    ...(m.toolCalls !== undefined ? { toolCalls: arrayOf(m.toolCalls, `${where}.toolCalls`).map((n, i) => stringAt(n, `${where}.toolCalls[${i}]`)) } : {}),
    ...(m.toolCallId !== undefined ? { toolCallId: text(m, "toolCallId", `${where}.toolCallId`) } : {}),
  };
}

function layoutOf(value: unknown): NonNullable<RequestRecord["layout"]> {
  const l = objectOf(value, "layout");
  if (!(STABLE_PREFIX_PLACEMENTS as readonly unknown[]).includes(l.placement)) throw new RequestRecordError(`layout.placement ${JSON.stringify(l.placement)}: expected one of ${STABLE_PREFIX_PLACEMENTS.join(", ")}`);
  return { placement: l.placement as StablePrefixPlacement, moved: arrayOf(l.moved, "layout.moved").map((name, i) => stringAt(name, `layout.moved[${i}]`)) };
}

function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new RequestRecordError(`${what} must be an object`);
  return value as Record<string, unknown>;
}

function arrayOf(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new RequestRecordError(`${what} must be an array`);
  return value;
}

function text(o: Record<string, unknown>, field: string, what = field): string {
  return stringAt(o[field], what);
}

function stringAt(value: unknown, what: string): string {
  if (typeof value !== "string") throw new RequestRecordError(`${what} must be a string`);
  return value;
}

function count(o: Record<string, unknown>, field: string): number {
  const value = o[field];
  if (!isCount(value)) throw new RequestRecordError(`reply.${field} must be a whole number ≥ 0`);
  return value;
}

function tokenAt(value: unknown, index: number): number {
  if (!isCount(value)) throw new RequestRecordError(`tokens[${index}] must be a token id (a whole number ≥ 0)`);
  return value;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
