// Saves each panel's transcript after every change (durably: flushed, renamed into place, the
// folder flushed; readable by the user only), and keeps conversations in history
// (transcript-history.ts) when a panel is reset or closed. A transcript that cannot be read is
// kept aside (damaged-transcript.ts), never overwritten. Plain Node, no `vscode`, so it is
// unit-tested directly.

import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { checkedChatId } from "../core/chat-id";
import { replaceDurably } from "../core/disk/private-files";
import { keepAside } from "./damaged-transcript";
import { isSavedTranscript, type SavedTranscript } from "./saved-transcript";
import { TranscriptHistory, type HistoryItem, type HistoryOptions } from "./transcript-history";

export { titleOf, type SavedTranscript } from "./saved-transcript";
export type { HistoryItem } from "./transcript-history";

/** A chat's transcript on disk: none yet, the saved one, or a damaged file now kept aside at `keptAs` (the chat starts empty). */
export type StoredTranscript =
  | { readonly kind: "none" }
  | { readonly kind: "saved"; readonly transcript: SavedTranscript }
  | { readonly kind: "damaged"; readonly keptAs: string };

export class TranscriptStore {
  private writes = new Map<string, Promise<unknown>>();
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

  /** The chat's transcript; a file that cannot be read is moved aside first, so no later save overwrites it. */
  read(id: string): Promise<StoredTranscript> {
    const file = this.chatFile(id);
    // In the chat's chain: a save landing meanwhile is never the file moved aside.
    return this.serially(id, async (): Promise<StoredTranscript> => {
      let text: string;
      try {
        text = await readFile(file, "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "none" };
        return { kind: "damaged", keptAs: await keepAside(file) };
      }
      const transcript = parseTranscript(text);
      return transcript ? { kind: "saved", transcript } : { kind: "damaged", keptAs: await keepAside(file) };
    });
  }

  /** The chat's transcript, or undefined when there is none or it was damaged (and kept aside). */
  async load(id: string): Promise<SavedTranscript | undefined> {
    const found = await this.read(id);
    return found.kind === "saved" ? found.transcript : undefined;
  }

  /** Saves are serialized per transcript so an older snapshot never overwrites a newer one. */
  save(transcript: SavedTranscript): Promise<void> {
    return this.serially(transcript.id, () => replaceDurably(this.chatFile(transcript.id), JSON.stringify(transcript)));
  }

  private serially<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.writes.get(id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.writes.set(id, next);
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

function parseTranscript(text: string): SavedTranscript | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isSavedTranscript(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
