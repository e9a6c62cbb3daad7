// Saves each panel's transcript atomically (write a temp file, then rename) after every
// change, and keeps conversations in history (transcript-history.ts) when a panel is reset
// or closed. Plain Node, no `vscode`, so it is unit-tested directly.

import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { checkedChatId } from "../core/chat-id";
import { isSavedTranscript, type SavedTranscript } from "./saved-transcript";
import { TranscriptHistory, writeAtomically, type HistoryItem, type HistoryOptions } from "./transcript-history";

export { titleOf, type SavedTranscript } from "./saved-transcript";
export type { HistoryItem } from "./transcript-history";

export class TranscriptStore {
  private writes = new Map<string, Promise<void>>();
  private readonly archived: TranscriptHistory;

  constructor(
    private readonly root: string,
    options: HistoryOptions = {},
  ) {
    this.archived = new TranscriptHistory(join(root, "history"), options);
  }

  /** A chat's file; an id that is not a chat id (a path, `..`) is refused, whoever passed it. */
  private chatFile(id: string): string {
    return join(this.root, "chats", `${checkedChatId(id)}.json`);
  }

  async load(id: string): Promise<SavedTranscript | undefined> {
    const file = this.chatFile(id);
    try {
      const parsed: unknown = JSON.parse(await readFile(file, "utf8"));
      return isSavedTranscript(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  /** Saves are serialized per transcript so an older snapshot never overwrites a newer one. */
  save(transcript: SavedTranscript): Promise<void> {
    const previous = this.writes.get(transcript.id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => writeAtomically(this.chatFile(transcript.id), JSON.stringify(transcript)));
    this.writes.set(transcript.id, next);
    return next;
  }

  async remove(id: string): Promise<void> {
    await this.writes.get(id)?.catch(() => undefined);
    await rm(this.chatFile(id), { force: true });
  }

  /** Keeps a copy in history (before a reset clears the panel, and when it closes): one copy per conversation. */
  archive(transcript: SavedTranscript): Promise<void> {
    return this.archived.archive(transcript);
  }

  /** History, newest first, from its index (files are read only when the index does not know them). */
  history(): Promise<HistoryItem[]> {
    return this.archived.list();
  }

  loadHistory(file: string): Promise<SavedTranscript | undefined> {
    return this.archived.load(file);
  }

  /** "Delete Chat from History…": the chosen copies (`HistoryItem.file`). */
  deleteHistory(files: readonly string[]): Promise<void> {
    return this.archived.delete(files);
  }

  /** "Clear Chat History". */
  clearHistory(): Promise<void> {
    return this.archived.clear();
  }
}
