// The description stored beside a KV cache file: what it was made with and the conversation
// it holds. Read back it is validated field by field (a damaged or foreign file is refused),
// and the ledger hash is recomputed from the stored conversation (no silent corruption).

import { createHash } from "node:crypto";
import { isChatId } from "../core/chat-id";
import { parseSavedContext, type SavedContextItem } from "../core/context-delta";
import type { BackendName } from "../core/engine";
import type { ConversationState } from "../core/turn-runner";
import type { ModelIdentity } from "./model-identity";

export interface SnapshotMeta {
  readonly version: 1;
  readonly id: string;
  readonly savedAt: string;
  readonly backend: BackendName;
  readonly model: ModelIdentity;
  /** The model file's path when it was saved (for the log: identity never depends on it; older snapshots lack it). */
  readonly modelPath?: string;
  readonly contextSize: number;
  readonly ledger: { readonly length: number; readonly sha256: string };
  /** Size of the cache file; a shorter file is a truncated one. */
  readonly cacheBytes: number;
  /**
   * Incremental saves after the cache file, in order: each holds the cells of the ledger's
   * tokens [from, from + length), the first starting where the cache file ends and the last
   * ending at the ledger's end. Absent: the cache file holds the whole ledger.
   */
  readonly deltas?: readonly SnapshotDelta[];
  readonly conversation: ConversationState;
  /** The workspace context that conversation holds (a chat panel's; absent for others and in older snapshots). */
  readonly context?: readonly SavedContextItem[];
}

export interface SnapshotDelta {
  /** The file's name, in the snapshot's folder: `<id>.<n>.kvd`. */
  readonly file: string;
  readonly from: number;
  readonly length: number;
  readonly bytes: number;
}

/** A delta file's name for snapshot `id`. */
export function deltaFileName(id: string, n: number): string {
  return `${id}.${n}.kvd`;
}

function isDeltaChain(v: unknown, id: string, ledgerLength: number): v is readonly SnapshotDelta[] {
  if (!Array.isArray(v) || v.length === 0) return false;
  let end: number | undefined;
  for (const d of v as unknown[]) {
    if (!isObject(d) || typeof d.file !== "string" || !isCount(d.from) || !isCount(d.length) || !isCount(d.bytes) || d.length === 0) return false;
    if (!new RegExp(`^${id}\\.\\d+\\.kvd$`).test(d.file)) return false;
    if (end === undefined ? d.from === 0 : d.from !== end) return false;
    end = d.from + d.length;
  }
  return end === ledgerLength;
}

export function ledgerOf(conversation: ConversationState): number[] {
  return conversation.prompt.segments.flatMap((segment) => [...segment.tokens]);
}

export function ledgerHash(tokens: readonly number[]): string {
  return createHash("sha256").update(Buffer.from(Uint32Array.from(tokens).buffer)).digest("hex");
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

function isConversation(v: unknown): v is ConversationState {
  if (!isObject(v) || v.version !== 1 || !isCount(v.turns) || !isObject(v.prompt)) return false;
  const { messages, segments, rewindFloor } = v.prompt;
  return (
    isCount(rewindFloor) &&
    Array.isArray(messages) &&
    messages.every((m) => isObject(m) && ["system", "user", "assistant"].includes(m.role as string) && typeof m.content === "string") &&
    Array.isArray(segments) &&
    segments.every((s) => isObject(s) && typeof s.text === "string" && Array.isArray(s.tokens) && s.tokens.every(isCount))
  );
}

/** A parsed meta file, or undefined when anything about it is off. */
export function parseMeta(raw: unknown): SnapshotMeta | undefined {
  if (!isObject(raw) || raw.version !== 1 || typeof raw.id !== "string" || typeof raw.savedAt !== "string") return undefined;
  if (raw.backend !== "llamacpp" && raw.backend !== "coreml") return undefined;
  const model = raw.model;
  if (!isObject(model) || !isCount(model.size) || typeof model.mtimeMs !== "number" || typeof model.headerSha256 !== "string") return undefined;
  if (raw.modelPath !== undefined && typeof raw.modelPath !== "string") return undefined;
  const ledger = raw.ledger;
  if (!isObject(ledger) || !isCount(ledger.length) || typeof ledger.sha256 !== "string") return undefined;
  if (!isCount(raw.contextSize) || !isCount(raw.cacheBytes) || !isConversation(raw.conversation)) return undefined;
  if (raw.context !== undefined && parseSavedContext(raw.context) === undefined) return undefined;
  if (raw.deltas !== undefined && !(isChatId(raw.id) && isDeltaChain(raw.deltas, raw.id, ledger.length))) return undefined;
  const tokens = ledgerOf(raw.conversation);
  if (tokens.length !== ledger.length || ledgerHash(tokens) !== ledger.sha256) return undefined;
  return raw as unknown as SnapshotMeta;
}
