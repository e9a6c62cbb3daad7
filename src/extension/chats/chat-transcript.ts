// A chat panel's transcript: the entries the user sees, in order, saved after every change
// and archived when the conversation is reset or the panel closes. It posts each change to
// the webview; it knows nothing of sessions or engines.

import { randomUUID } from "node:crypto";
import type { EntryStatus, HostToWebview, TranscriptEntry, TurnStatsView } from "../../webview/protocol/messages";
import type { ComposerChoices } from "./saved-transcript";
import { titleOf, type SavedTranscript, type TranscriptStore } from "./transcript-store";

export type MutableEntry = { -readonly [K in keyof TranscriptEntry]: TranscriptEntry[K] };

export interface TranscriptDeps {
  readonly store: TranscriptStore;
  readonly post: (message: HostToWebview) => void;
  readonly setTitle: (title: string) => void;
  /** The loaded model's name, saved with the transcript. */
  readonly modelName: () => string | undefined;
  /** Re-sends the whole transcript (after an entry is removed). */
  readonly resync: () => void;
  readonly logError: (message: string) => void;
  /** The composer's lasting choices, saved beside the entries. */
  readonly composer?: () => ComposerChoices;
}

export class PanelTranscript {
  private list: MutableEntry[] = [];
  private createdAt = new Date().toISOString();

  constructor(
    private readonly id: string,
    private readonly deps: TranscriptDeps,
  ) {}

  get entries(): readonly MutableEntry[] {
    return this.list;
  }

  /** A saved conversation reopened: a reply that was streaming when it was saved is stopped. */
  restore(saved: SavedTranscript): void {
    this.list = saved.entries.map((e) => ({ ...e, status: e.status === "streaming" ? "stopped" : e.status }));
    this.createdAt = saved.createdAt;
    this.deps.setTitle(titleOf(this.list));
  }

  add(entry: Omit<MutableEntry, "id">): MutableEntry {
    const full: MutableEntry = { id: randomUUID(), ...entry };
    this.list.push(full);
    if (full.role === "user" && this.list.filter((e) => e.role === "user").length === 1) this.deps.setTitle(titleOf(this.list));
    this.deps.post({ type: "entry", entry: full });
    this.save();
    return full;
  }

  /** Tells the webview an entry changed (its chips, once the context was attached). */
  update(entry: MutableEntry): void {
    this.deps.post({ type: "entry", entry });
  }

  finish(entry: MutableEntry, status: EntryStatus, stats?: TurnStatsView): void {
    entry.status = status;
    if (stats) entry.stats = stats;
    this.deps.post({ type: "entryDone", id: entry.id, status, text: entry.text, stats });
  }

  remove(entry: MutableEntry): void {
    this.list = this.list.filter((e) => e !== entry);
    this.deps.resync();
  }

  streaming(): MutableEntry | undefined {
    return this.list.find((e) => e.status === "streaming");
  }

  /** Reset: the conversation so far is archived, the panel starts empty. */
  async clear(): Promise<void> {
    await this.archive();
    this.list = [];
    this.deps.post({ type: "cleared" });
    this.deps.setTitle("Stateful Chat");
    this.save();
  }

  snapshot(): SavedTranscript {
    return {
      version: 1,
      id: this.id,
      title: titleOf(this.list),
      createdAt: this.createdAt,
      updatedAt: new Date().toISOString(),
      modelPath: this.deps.modelName(),
      entries: this.list.map((e) => ({ ...e })),
      ...(this.deps.composer ? { composer: this.deps.composer() } : {}),
    };
  }

  save(): void {
    void this.deps.store.save(this.snapshot()).catch((e: unknown) => this.deps.logError(`Saving the transcript failed: ${String(e)}`));
  }

  async archive(): Promise<void> {
    await this.deps.store.archive(this.snapshot()).catch((e: unknown) => this.deps.logError(`Archiving the transcript failed: ${String(e)}`));
  }
}
