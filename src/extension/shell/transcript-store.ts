// Saves each panel's transcript atomically (write a temp file, then rename) after every
// change, and archives a transcript to history on reset. Plain Node, no `vscode`, so it is
// unit-tested directly.

import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { TranscriptEntry } from "../../webview/protocol/messages";

export interface SavedTranscript {
  readonly version: 1;
  readonly id: string;
  readonly title: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly modelPath?: string;
  readonly entries: readonly TranscriptEntry[];
}

export interface HistoryItem {
  readonly file: string;
  readonly title: string;
  readonly updatedAt: string;
  readonly entries: number;
}

function isSaved(value: unknown): value is SavedTranscript {
  const v = value as SavedTranscript;
  return typeof v === "object" && v !== null && v.version === 1 && typeof v.id === "string" && Array.isArray(v.entries);
}

export function titleOf(entries: readonly TranscriptEntry[]): string {
  const first = entries.find((e) => e.role === "user")?.text.trim() ?? "";
  const line = first.split("\n")[0];
  return line.length > 60 ? `${line.slice(0, 57)}…` : line || "Empty chat";
}

export class TranscriptStore {
  private writes = new Map<string, Promise<void>>();

  constructor(private readonly root: string) {}

  private chatFile(id: string): string {
    return join(this.root, "chats", `${id}.json`);
  }

  private get historyDir(): string {
    return join(this.root, "history");
  }

  async load(id: string): Promise<SavedTranscript | undefined> {
    try {
      const parsed: unknown = JSON.parse(await readFile(this.chatFile(id), "utf8"));
      return isSaved(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  /** Saves are serialized per transcript so an older snapshot never overwrites a newer one. */
  save(transcript: SavedTranscript): Promise<void> {
    const previous = this.writes.get(transcript.id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.writeAtomically(this.chatFile(transcript.id), transcript));
    this.writes.set(transcript.id, next);
    return next;
  }

  async remove(id: string): Promise<void> {
    await this.writes.get(id)?.catch(() => undefined);
    await rm(this.chatFile(id), { force: true });
  }

  /** Keeps a copy in history (used before a reset clears the panel). */
  async archive(transcript: SavedTranscript): Promise<void> {
    if (!transcript.entries.some((e) => e.role === "user")) return;
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    await this.writeAtomically(join(this.historyDir, `${stamp}-${transcript.id}.json`), transcript);
  }

  async history(): Promise<HistoryItem[]> {
    let files: string[];
    try {
      files = await readdir(this.historyDir);
    } catch {
      return [];
    }
    const items: HistoryItem[] = [];
    for (const file of files.filter((f) => f.endsWith(".json"))) {
      try {
        const parsed: unknown = JSON.parse(await readFile(join(this.historyDir, file), "utf8"));
        if (isSaved(parsed)) items.push({ file, title: parsed.title, updatedAt: parsed.updatedAt, entries: parsed.entries.length });
      } catch {
        // a damaged history file is skipped, not fatal
      }
    }
    return items.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }

  async loadHistory(file: string): Promise<SavedTranscript | undefined> {
    if (file.includes("/") || file.includes("\\")) return undefined;
    try {
      const parsed: unknown = JSON.parse(await readFile(join(this.historyDir, file), "utf8"));
      return isSaved(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  private async writeAtomically(file: string, data: SavedTranscript): Promise<void> {
    await mkdir(join(file, ".."), { recursive: true });
    const temp = `${file}.${randomUUID()}.tmp`;
    await writeFile(temp, JSON.stringify(data), "utf8");
    await rename(temp, file);
  }
}
