// Workspace context, incrementally: remembers what the conversation already holds (by
// content hash) and renders only what changed since — new items in full, changed items as
// a unified diff when that is shorter, removed items as a one-line note. Budgets cap the
// tokens per item and per turn. Nothing is recorded until the turn really happened.
// Each delta also lists every item with its state (new / diff / known / skipped) and token
// cost, so the composer can show, before sending, exactly what the message will carry.

import { createHash } from "node:crypto";
import { createPatch } from "diff";
import { limitToTokens } from "./context-window";

const CONTEXT_KINDS = ["file", "selection", "diagnostics", "outline"] as const;
export type ContextKind = (typeof CONTEXT_KINDS)[number];

/**
 * Why an item is in the context. Automatic items (the active file, its selection and
 * problems) that disappear get a one-line "no longer in context" note; mentioned and pinned
 * items the user stops attaching stay silently known (the model has seen them, and
 * mentioning them again sends only their changes).
 */
const CONTEXT_ORIGINS = ["auto", "mention", "pinned"] as const;
export type ContextOrigin = (typeof CONTEXT_ORIGINS)[number];

export interface ContextItem {
  /** Stable identity across turns, e.g. "file:src/a.ts". */
  readonly id: string;
  readonly kind: ContextKind;
  readonly label: string;
  readonly content: string;
  readonly language?: string;
  /** Defaults to "auto". */
  readonly origin?: ContextOrigin;
  /** Zero-based line to keep in view when the item is over its budget (the cursor). */
  readonly focusLine?: number;
}

export interface ContextChipData {
  readonly label: string;
  readonly kind: ContextKind | "diff" | "removed" | "skipped";
  readonly detail?: string;
}

/** One item of a delta as the composer shows it before sending. */
interface ContextEntry {
  readonly id: string;
  readonly label: string;
  readonly kind: ContextKind;
  /** new: sent in full; diff: sent as changes; known: already in the model, costs nothing; removed: a one-line note says it is gone. */
  readonly state: "new" | "diff" | "known" | "skipped" | "removed";
  /** Tokens this item adds to the message (0 when known or skipped). */
  readonly tokens: number;
  readonly detail?: string;
}

export interface DeltaOptions {
  /** Refused items to list as skipped chips (e.g. a secrets file), with their reasons. */
  readonly skipped?: readonly ContextChipData[];
  /** Ids absent from this turn that must not be reported as removed (the user set them aside). */
  readonly retain?: ReadonlySet<string>;
}

export interface ContextBudget {
  readonly maxTokensPerTurn: number;
  readonly maxTokensPerItem: number;
  readonly countTokens: (text: string) => number;
}

export interface ContextDelta {
  /** Text placed in the user turn before the question; empty when nothing changed. */
  readonly text: string;
  readonly chips: readonly ContextChipData[];
  /** Every item, sent or already known, in order: what the composer chips show. */
  readonly entries: readonly ContextEntry[];
  /** Record the delta as seen by the model (call only after the turn was prefilled). */
  commit(): void;
}

/**
 * One item the model holds, as saved with a KV snapshot: a chat reopened from that snapshot
 * holds the same context, so it is not sent again (its hash is recomputed from `content`).
 */
export interface SavedContextItem {
  readonly id: string;
  readonly content: string;
  readonly label: string;
  readonly kind: ContextKind;
  readonly origin: ContextOrigin;
  /** The model saw only a prefix: a diff against `content` would be wrong. */
  readonly truncated: boolean;
}

interface Sent extends Omit<SavedContextItem, "id"> {
  readonly hash: string;
}

const isMember = <T extends string>(list: readonly T[], value: unknown): value is T => list.includes(value as T);

/** Saved context items read back from disk, or undefined when any of them is malformed. */
export function parseSavedContext(raw: unknown): SavedContextItem[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const items: SavedContextItem[] = [];
  const ids = new Set<string>();
  for (const value of raw as unknown[]) {
    if (typeof value !== "object" || value === null) return undefined;
    const v = value as Record<string, unknown>;
    if (typeof v.id !== "string" || ids.has(v.id) || typeof v.content !== "string" || typeof v.label !== "string" || typeof v.truncated !== "boolean") return undefined;
    if (!isMember(CONTEXT_KINDS, v.kind) || !isMember(CONTEXT_ORIGINS, v.origin)) return undefined;
    ids.add(v.id);
    items.push({ id: v.id, content: v.content, label: v.label, kind: v.kind, origin: v.origin, truncated: v.truncated });
  }
  return items;
}

function hashOf(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function fence(item: ContextItem, body: string): string {
  return "```" + (item.language ?? "") + "\n" + body + (body.endsWith("\n") ? "" : "\n") + "```";
}


export class ContextLedger {
  private sent = new Map<string, Sent>();

  /** Forget everything (after a reset or an overflow the state no longer holds it). */
  clear(): void {
    this.sent.clear();
  }

  get size(): number {
    return this.sent.size;
  }

  /** What the model holds, to save with the KV cache that holds it. */
  saved(): SavedContextItem[] {
    return [...this.sent].map(([id, { content, label, kind, origin, truncated }]) => ({ id, content, label, kind, origin, truncated }));
  }

  /** The conversation was restored with a cache that holds these items: they are known again. */
  restore(items: readonly SavedContextItem[]): void {
    this.sent = new Map(items.map(({ id, ...item }) => [id, { ...item, hash: hashOf(item.content) }]));
  }

  /** Ids of everything the model holds. */
  knownIds(): string[] {
    return [...this.sent.keys()];
  }

  /** Whether the model already holds this item (by id), e.g. to word a chip. */
  has(id: string): boolean {
    return this.sent.has(id);
  }

  /** The content the model holds for an item, as it was sent. */
  contentOf(id: string): string | undefined {
    return this.sent.get(id)?.content;
  }

  delta(items: readonly ContextItem[], budget: ContextBudget, options: DeltaOptions = {}): ContextDelta {
    const parts: string[] = [];
    const skipped = options.skipped ?? [];
    const chips: ContextChipData[] = [...skipped];
    const entries: ContextEntry[] = [];
    const updates = new Map<string, Sent | undefined>();
    let used = 0;
    const fits = (text: string) => used + budget.countTokens(text) <= budget.maxTokensPerTurn;

    const present = new Set(items.map((i) => i.id));
    for (const [id, previous] of this.sent) {
      if (present.has(id) || options.retain?.has(id) || previous.origin !== "auto") continue;
      const note = `(${previous.label} is no longer in context.)`;
      parts.push(note);
      used += budget.countTokens(note);
      chips.push({ label: previous.label, kind: "removed" });
      entries.push({ id, label: previous.label, kind: previous.kind, state: "removed", tokens: budget.countTokens(note) });
      updates.set(id, undefined);
    }

    for (const item of items) {
      const hash = hashOf(item.content);
      const previous = this.sent.get(item.id);
      const origin = item.origin ?? "auto";
      if (previous?.hash === hash) {
        entries.push({ id: item.id, label: item.label, kind: item.kind, state: "known", tokens: 0 });
        // A mention that becomes the active file (or the reverse) keeps the stronger claim.
        if (previous.origin !== origin) updates.set(item.id, { ...previous, origin });
        continue;
      }
      const limited = limitToTokens(item.content, budget.maxTokensPerItem, budget.countTokens, item.focusLine);
      const full = `${item.label}${limited.note ? ` (${limited.note})` : ""}:\n${fence(item, limited.text)}`;
      let rendered = full;
      let kind: ContextChipData["kind"] = item.kind;
      if (previous && !previous.truncated && !limited.truncated) {
        const patchLines = createPatch(item.label, previous.content, item.content, "", "", { context: 2 }).split("\n");
        // Drop the Index/---/+++ header: the label already says which file.
        const patch = patchLines.slice(patchLines.findIndex((l) => l.startsWith("@@"))).join("\n");
        const asDiff = `${item.label} changed:\n${"```diff\n"}${patch}${patch.endsWith("\n") ? "" : "\n"}${"```"}`;
        if (budget.countTokens(asDiff) < budget.countTokens(full)) {
          rendered = asDiff;
          kind = "diff";
        }
      }
      if (!fits(rendered)) {
        chips.push({ label: item.label, kind: "skipped", detail: "over the context budget" });
        entries.push({ id: item.id, label: item.label, kind: item.kind, state: "skipped", tokens: 0, detail: "over the context budget" });
        continue;
      }
      const tokens = budget.countTokens(rendered);
      parts.push(rendered);
      used += tokens;
      chips.push({ label: item.label, kind, detail: limited.note });
      // A changed item whose diff would not be shorter goes in full: say so on its chip.
      const detail = limited.note ?? (previous && kind !== "diff" ? "changed, sent in full" : undefined);
      entries.push({ id: item.id, label: item.label, kind: item.kind, state: kind === "diff" ? "diff" : "new", tokens, detail });
      updates.set(item.id, { hash, content: item.content, label: item.label, kind: item.kind, origin, truncated: limited.truncated });
    }

    const text = parts.length > 0 ? `Context from the workspace:\n\n${parts.join("\n\n")}` : "";
    return {
      text,
      chips,
      entries,
      commit: () => {
        for (const [id, value] of updates) {
          if (value) this.sent.set(id, value);
          else this.sent.delete(id);
        }
      },
    };
  }
}
