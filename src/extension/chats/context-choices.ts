// What the user chose for a panel's next message, beyond the automatic context: files and
// keywords they mentioned (for the next message only), files they pinned (every turn until
// unpinned), chips they took off the next message, and whether the active file is attached
// at all. Plain state, no VS Code: the gatherer reads it, the webview's messages change it.

import type { ContextItem } from "../core/context-delta";
import type { ComposerChoices } from "./saved-transcript";

export type MentionKeyword = "problems" | "selection" | "open" | "workspace";
export const MENTION_KEYWORDS: readonly MentionKeyword[] = ["problems", "selection", "open", "workspace"];

export type Mention =
  | { readonly kind: "file"; readonly path: string }
  | { readonly kind: "keyword"; readonly keyword: Exclude<MentionKeyword, "selection"> }
  /** The selection as it was when mentioned (the editor may have moved on since). */
  | { readonly kind: "snapshot"; readonly item: ContextItem };

export class ContextChoices {
  private readonly mentions = new Map<string, Mention>();
  private readonly pins = new Set<string>();
  private readonly aside = new Set<string>();
  activeFileOff = false;

  get mentioned(): readonly Mention[] {
    return [...this.mentions.values()];
  }

  get pinned(): readonly string[] {
    return [...this.pins];
  }

  get setAside(): ReadonlySet<string> {
    return this.aside;
  }

  mention(mention: Mention): void {
    const key = keyOf(mention);
    this.mentions.delete(key);
    this.mentions.set(key, mention);
    this.aside.delete(idOf(mention));
  }

  pin(path: string, pinned: boolean): void {
    if (pinned) {
      this.pins.add(path);
      this.aside.delete(`file:${path}`);
    } else this.pins.delete(path);
  }

  /**
   * Takes a chip off the next message: a mention is forgotten, a pin released, and the id set
   * aside once, so the same item from another source (the editor's live selection under a
   * removed selection mention, the active file under a removed pin) stays off too.
   */
  remove(id: string): void {
    for (const [key, mention] of this.mentions) {
      if (idOf(mention) === id || key === id) this.mentions.delete(key);
    }
    if (id.startsWith("file:")) this.pins.delete(id.slice(5));
    this.aside.add(id);
  }

  /** The message was sent: mentions and set-asides applied to it only. */
  sent(): void {
    this.mentions.clear();
    this.aside.clear();
  }

  clear(): void {
    this.sent();
    this.pins.clear();
    this.activeFileOff = false;
  }

  /** The choices that outlast a message (saved with the transcript). */
  lasting(): ComposerChoices {
    return { pinned: [...this.pins], activeFileOff: this.activeFileOff };
  }

  /** A saved chat reopened: its pins and active-file switch come back. */
  restoreLasting(saved: ComposerChoices): void {
    this.pins.clear();
    for (const path of saved.pinned) this.pins.add(path);
    this.activeFileOff = saved.activeFileOff;
  }
}

/** The context item id a mention produces (keywords expand to several; this is the main one). */
function idOf(mention: Mention): string {
  switch (mention.kind) {
    case "file":
      return `file:${mention.path}`;
    case "snapshot":
      return mention.item.id;
    case "keyword":
      return mention.keyword === "problems" ? "diagnostics:workspace" : mention.keyword === "workspace" ? "outline" : "open";
  }
}

function keyOf(mention: Mention): string {
  return mention.kind === "keyword" ? `@${mention.keyword}` : idOf(mention);
}
