// Chat history: the conversations a reset or a closed panel left behind, one copy each.
// A conversation is archived again on every reset, close and window reload; a copy whose
// entries begin another copy's (the same conversation, shorter) is superseded by it, so
// history holds one copy per conversation and keeps branches (two continuations of one
// reopened chat) apart. At most `maxConversations` copies are kept, the oldest go first.
// Listing reads `index.json`, not every file: a file missing from the index (written by
// another window, or before the index existed) is read once and added, an index entry whose
// file is gone is dropped, so the index heals whatever a crash or a second window did to it.
// Copies and the index are written durably, for the user only (core/disk/private-files.ts).
// Plain Node, no `vscode`.

import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { replaceDurably } from "../core/disk/private-files";
import type { TranscriptEntry } from "../../webview/protocol/messages";
import { isSavedTranscript, type SavedTranscript } from "./saved-transcript";

export interface HistoryItem {
  readonly file: string;
  readonly title: string;
  readonly updatedAt: string;
  readonly entries: number;
}

/** What the index keeps of a copy: enough to list it and to tell whether a newer copy supersedes it. */
interface IndexedCopy extends HistoryItem {
  /** The id of the conversation's first entry: copies of one conversation share it. */
  readonly first: string;
}

interface IndexFile {
  readonly version: 1;
  readonly copies: readonly IndexedCopy[];
  /** Files that could not be read: skipped, not read again on every listing. */
  readonly unreadable?: readonly string[];
}

const INDEX = "index.json";
const DEFAULT_MAX_CONVERSATIONS = 100;

/** Which conversation entries belong to: the id of its first entry (a fresh UUID per conversation, kept on reload and reopen). */
function conversationKey(entries: readonly TranscriptEntry[]): string {
  return entries[0]?.id ?? "";
}

/** A digest of the entries as the user sees them (id, role, text), in order. */
function contentDigest(entries: readonly TranscriptEntry[]): string {
  const hash = createHash("sha256");
  for (const e of entries) hash.update(JSON.stringify([e.id, e.role, e.text])).update("\n");
  return hash.digest("hex").slice(0, 32);
}

/** Whether `shorter`'s entries are the first entries of `longer` (equal counts as a prefix). */
function isPrefixOf(shorter: readonly TranscriptEntry[], longer: readonly TranscriptEntry[]): boolean {
  return shorter.length <= longer.length && contentDigest(shorter) === contentDigest(longer.slice(0, shorter.length));
}

export interface CopyContent {
  readonly file: string;
  readonly updatedAt: string;
  readonly entries: readonly TranscriptEntry[];
}

/**
 * The copies another copy makes redundant: its entries begin the other's (the same
 * conversation, archived again later). Of equal copies the newest stays. Copies of different
 * conversations, and branches of one, are all kept.
 */
function supersededCopies(copies: readonly CopyContent[]): Set<string> {
  const gone = new Set<string>();
  for (const a of copies) {
    const key = conversationKey(a.entries);
    const beaten = copies.some(
      (b) => b !== a && conversationKey(b.entries) === key && isPrefixOf(a.entries, b.entries) && (b.entries.length > a.entries.length || newestFirst(b, a) < 0),
    );
    if (beaten) gone.add(a.file);
  }
  return gone;
}

function isIndexedCopy(value: unknown): value is IndexedCopy {
  const v = value as IndexedCopy;
  return (
    typeof v === "object" && v !== null && typeof v.file === "string" && typeof v.title === "string" && typeof v.updatedAt === "string" &&
    typeof v.entries === "number" && typeof v.first === "string"
  );
}

function copyOf(file: string, saved: SavedTranscript): IndexedCopy {
  return { file, title: saved.title, updatedAt: saved.updatedAt, entries: saved.entries.length, first: conversationKey(saved.entries) };
}

const newestFirst = (a: { file: string; updatedAt: string }, b: { file: string; updatedAt: string }) => b.updatedAt.localeCompare(a.updatedAt) || b.file.localeCompare(a.file);

export interface HistoryOptions {
  /** `statefulChat.history.maxConversations`, read when it is needed (a changed setting applies on the next archive or listing). */
  readonly maxConversations?: () => number;
}

export class TranscriptHistory {
  /** History changes one at a time in this window (another window's are healed by `reconcile`). */
  private chain: Promise<unknown> = Promise.resolve();
  /** The index as last read or written (it is not written again unchanged). */
  private lastIndexText: string | undefined;
  /** Files that could not be read, kept in the index so a listing does not read them again. */
  private unreadable = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly options: HistoryOptions = {},
  ) {}

  /** Keeps a copy of a conversation; older copies it continues are removed, and one it only repeats is not written. */
  archive(transcript: SavedTranscript): Promise<void> {
    return this.serially(async () => {
      if (!transcript.entries.some((e) => e.role === "user")) return;
      const copies = await this.reconcile();
      const key = conversationKey(transcript.entries);
      const stamp = new Date().toISOString().replace(/[:.]/g, "-");
      const file = `${stamp}-${transcript.id}-${randomUUID().slice(0, 8)}.json`;
      const same = await this.contents(copies.filter((c) => c.first === key));
      const gone = supersededCopies([...same, { file, updatedAt: transcript.updatedAt, entries: transcript.entries }]);
      // Unless a copy already holds all of it, the new copy is written before the ones it continues are removed.
      if (!gone.has(file)) await replaceDurably(join(this.dir, file), JSON.stringify(transcript));
      await this.removeFiles(gone);
      const kept = copies.filter((c) => !gone.has(c.file));
      await this.commit(gone.has(file) ? kept : [...kept, copyOf(file, transcript)]);
    });
  }

  /** The kept conversations, newest first. */
  list(): Promise<HistoryItem[]> {
    return this.serially(async () => {
      const copies = await this.commit(await this.reconcile());
      return copies.map(({ file, title, updatedAt, entries }) => ({ file, title, updatedAt, entries }));
    });
  }

  async load(file: string): Promise<SavedTranscript | undefined> {
    return isHistoryFileName(file) ? this.read(file) : undefined;
  }

  /** Deletes the given copies (names from `list`). */
  delete(files: readonly string[]): Promise<void> {
    return this.serially(async () => {
      const gone = new Set(files.filter(isHistoryFileName));
      const copies = await this.reconcile();
      await this.removeFiles(gone);
      await this.commit(copies.filter((c) => !gone.has(c.file)));
    });
  }

  /** Deletes every kept conversation. */
  clear(): Promise<void> {
    return this.serially(async () => {
      const copies = await this.reconcile();
      await this.removeFiles(new Set([...copies.map((c) => c.file), ...(await this.files())]));
      await this.commit([]);
    });
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.catch(() => undefined).then(work);
    this.chain = next;
    return next;
  }

  /**
   * The index, matched to the folder: files it does not know are read and added (superseded
   * copies among them removed), entries whose file is gone are dropped.
   */
  private async reconcile(): Promise<IndexedCopy[]> {
    const onDisk = new Set(await this.files());
    const indexed = (await this.readIndex()).filter((c) => onDisk.has(c.file));
    const known = new Set(indexed.map((c) => c.file));
    this.unreadable = new Set([...this.unreadable].filter((f) => onDisk.has(f)));
    const found: { copy: IndexedCopy; saved: SavedTranscript }[] = [];
    for (const file of onDisk) {
      if (known.has(file) || this.unreadable.has(file)) continue;
      const saved = await this.read(file);
      if (saved) found.push({ copy: copyOf(file, saved), saved });
      else this.unreadable.add(file);
    }
    if (found.length === 0) return indexed;
    // Copies written before the index (one per reset, close and reload), or by another window: de-duplicated once.
    const keys = new Set(found.map((f) => f.copy.first));
    const group = [...(await this.contents(indexed.filter((c) => keys.has(c.first)))), ...found.map((f) => ({ file: f.copy.file, updatedAt: f.copy.updatedAt, entries: f.saved.entries }))];
    const gone = supersededCopies(group);
    await this.removeFiles(gone);
    return [...indexed, ...found.map((f) => f.copy)].filter((c) => !gone.has(c.file));
  }

  /** The entries of some copies (damaged files left out). */
  private async contents(copies: readonly IndexedCopy[]): Promise<CopyContent[]> {
    const out: CopyContent[] = [];
    for (const c of copies) {
      const saved = await this.read(c.file);
      if (saved) out.push({ file: c.file, updatedAt: saved.updatedAt, entries: saved.entries });
    }
    return out;
  }

  /** Caps the copies (oldest removed), writes the index, returns what is kept, newest first. */
  private async commit(copies: IndexedCopy[]): Promise<IndexedCopy[]> {
    const max = Math.max(1, Math.floor(this.options.maxConversations?.() ?? DEFAULT_MAX_CONVERSATIONS));
    const sorted = [...copies].sort(newestFirst);
    const kept = sorted.slice(0, max);
    await this.removeFiles(new Set(sorted.slice(max).map((c) => c.file)));
    const index: IndexFile = { version: 1, copies: kept, ...(this.unreadable.size > 0 ? { unreadable: [...this.unreadable].sort() } : {}) };
    const current = JSON.stringify(index);
    if (current !== this.lastIndexText) {
      await replaceDurably(join(this.dir, INDEX), current);
      this.lastIndexText = current;
    }
    return kept;
  }

  private async readIndex(): Promise<IndexedCopy[]> {
    this.lastIndexText = undefined;
    this.unreadable = new Set();
    let parsed: Partial<IndexFile> | undefined;
    try {
      const text = await readFile(join(this.dir, INDEX), "utf8");
      parsed = JSON.parse(text) as Partial<IndexFile>;
      this.lastIndexText = text;
    } catch {
      return []; // missing or damaged: rebuilt from the files
    }
    if (parsed?.version !== 1 || !Array.isArray(parsed.copies)) return [];
    if (Array.isArray(parsed.unreadable)) this.unreadable = new Set(parsed.unreadable.filter((f): f is string => typeof f === "string"));
    return parsed.copies.filter(isIndexedCopy);
  }

  private async files(): Promise<string[]> {
    try {
      return (await readdir(this.dir)).filter(isHistoryFileName);
    } catch {
      return [];
    }
  }

  private async read(file: string): Promise<SavedTranscript | undefined> {
    try {
      const parsed: unknown = JSON.parse(await readFile(join(this.dir, file), "utf8"));
      return isSavedTranscript(parsed) ? parsed : undefined;
    } catch {
      return undefined; // a damaged history file is skipped, not fatal
    }
  }

  private async removeFiles(files: ReadonlySet<string>): Promise<void> {
    for (const file of files) await rm(join(this.dir, file), { force: true });
  }
}

/** A conversation's file in the history folder (never the index, a temp file or a path elsewhere). */
function isHistoryFileName(file: string): boolean {
  return file.endsWith(".json") && file !== INDEX && !file.includes("/") && !file.includes("\\") && file !== ".." && !file.startsWith(".");
}
