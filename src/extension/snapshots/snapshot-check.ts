// Whether a chat's KV snapshot on disk may be loaded: its description readable and for this
// chat, the same backend, model file and context size, every file it names at its recorded
// size, and the conversation it holds the transcript's. Anything else is a reason, said in
// words, and the store deletes the snapshot instead of loading it.

import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { ChatMessage } from "../core/chat-template";
import type { EngineInfo } from "../core/engine";
import { modelDifferences, modelIdentity } from "./model-identity";
import { parseMeta, type SnapshotMeta } from "./snapshot-meta";

/** The files of one chat's snapshot. */
export interface SnapshotFiles {
  readonly cache: string;
  readonly meta: string;
}

/** Why the snapshot cannot be used, or its meta when it can. */
export async function checkSnapshot(files: SnapshotFiles, root: string, id: string, info: EngineInfo, messages: readonly ChatMessage[]): Promise<SnapshotMeta | string> {
  let raw: string;
  try {
    raw = await readFile(files.meta, "utf8");
  } catch {
    return "no snapshot";
  }
  let meta: SnapshotMeta | undefined;
  try {
    meta = parseMeta(JSON.parse(raw));
  } catch {
    meta = undefined;
  }
  if (!meta || meta.id !== id) return "unreadable snapshot description";
  if (meta.backend !== info.backend) return `made with ${meta.backend}, not ${info.backend}`;
  const changed = modelDifferences(meta.model, await modelIdentity(info.modelPath));
  if (changed.length > 0) return `made with another model file (${[...changed, pathNote(meta.modelPath, info.modelPath)].join("; ")})`;
  if (meta.contextSize !== info.capacity) return `made for context size ${meta.contextSize}, not ${info.capacity}`;
  const missing = await missingFile(files, root, meta);
  if (missing !== undefined) return missing;
  if (!sameConversation(meta.conversation.prompt.messages, messages)) return "the transcript's conversation differs";
  return meta;
}

/** Why the cache file or a delta a snapshot names is not on disk at its recorded size, or undefined when all are. */
export async function missingFile(files: SnapshotFiles, root: string, snapshot: Pick<SnapshotMeta, "cacheBytes" | "deltas">): Promise<string | undefined> {
  const size = await stat(files.cache).then((s) => s.size, () => -1);
  if (size !== snapshot.cacheBytes) return size < 0 ? "cache file missing" : `cache file is ${size} bytes, expected ${snapshot.cacheBytes} (truncated)`;
  for (const delta of snapshot.deltas ?? []) {
    const bytes = await stat(join(root, delta.file)).then((s) => s.size, () => -1);
    if (bytes !== delta.bytes) return bytes < 0 ? `delta ${delta.file} missing` : `delta ${delta.file} is ${bytes} bytes, expected ${delta.bytes} (truncated)`;
  }
  return undefined;
}

/** Whether the refused snapshot was made with the file at this path or another one (a copy, a symlink, the default model fetched elsewhere). */
function pathNote(saved: string | undefined, current: string): string {
  if (saved === undefined) return `now ${current}`;
  return saved === current ? `same path ${current}` : `saved with ${saved}, now ${current}`;
}

/**
 * The snapshot's conversation is the transcript's: same turns, same replies. A user message
 * in the prompt may carry workspace context before the text the transcript shows.
 */
function sameConversation(saved: readonly ChatMessage[], transcript: readonly ChatMessage[]): boolean {
  const turns = saved.filter((m) => m.role !== "system");
  if (turns.length !== transcript.length) return false;
  return turns.every((m, i) => {
    const t = transcript[i];
    if (m.role !== t.role) return false;
    return m.role === "assistant" ? m.content === t.content : m.content.trim().endsWith(t.content.trim());
  });
}
