// A chat's transcript as it is written to disk: the panel's live copy (chats/) and the
// copies kept in history (history/) share this shape.

import type { TranscriptEntry } from "../../webview/protocol/messages";

export interface SavedTranscript {
  readonly version: 1;
  readonly id: string;
  readonly title: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly modelPath?: string;
  readonly entries: readonly TranscriptEntry[];
  /** The composer's lasting choices (pinned files, the active-file switch); older files lack it. */
  readonly composer?: ComposerChoices;
}

/** What the user chose for every message of a chat, kept across a window reload (mentions are for one message only). */
export interface ComposerChoices {
  readonly pinned: readonly string[];
  readonly activeFileOff: boolean;
}

/** A saved chat's composer choices, or undefined when absent or malformed (then the chat starts with none: the conversation still loads). */
export function composerChoicesOf(saved: SavedTranscript): ComposerChoices | undefined {
  const c = saved.composer as unknown;
  if (typeof c !== "object" || c === null) return undefined;
  const { pinned, activeFileOff } = c as Record<string, unknown>;
  if (!Array.isArray(pinned) || !pinned.every((p) => typeof p === "string" && p.length > 0) || typeof activeFileOff !== "boolean") return undefined;
  return { pinned: [...new Set(pinned as string[])], activeFileOff };
}

export function isSavedTranscript(value: unknown): value is SavedTranscript {
  const v = value as SavedTranscript;
  return (
    typeof v === "object" && v !== null && v.version === 1 && typeof v.id === "string" && typeof v.title === "string" && typeof v.updatedAt === "string" &&
    Array.isArray(v.entries) && v.entries.every((e: TranscriptEntry) => typeof e === "object" && e !== null && typeof e.id === "string" && typeof e.text === "string")
  );
}

export function titleOf(entries: readonly TranscriptEntry[]): string {
  const first = entries.find((e) => e.role === "user")?.text.trim() ?? "";
  const line = first.split("\n")[0];
  return line.length > 60 ? `${line.slice(0, 57)}…` : line || "Empty chat";
}
