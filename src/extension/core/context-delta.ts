// Workspace context, incrementally: remembers what the conversation already holds (by
// content hash) and renders only what changed since — new items in full, changed items as
// a unified diff when that is shorter, removed items as a one-line note. Budgets cap the
// tokens per item and per turn. Nothing is recorded until the turn really happened.

import { createHash } from "node:crypto";
import { createPatch } from "diff";

export type ContextKind = "file" | "selection" | "diagnostics";

export interface ContextItem {
  /** Stable identity across turns, e.g. "file:src/a.ts". */
  readonly id: string;
  readonly kind: ContextKind;
  readonly label: string;
  readonly content: string;
  readonly language?: string;
}

export interface ContextChipData {
  readonly label: string;
  readonly kind: "file" | "selection" | "diagnostics" | "diff" | "removed" | "skipped";
  readonly detail?: string;
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
  /** Record the delta as seen by the model (call only after the turn was prefilled). */
  commit(): void;
}

interface Sent {
  readonly hash: string;
  readonly content: string;
  readonly label: string;
  /** The model saw only a prefix: a diff against `content` would be wrong. */
  readonly truncated: boolean;
}

function hashOf(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function fence(item: ContextItem, body: string): string {
  return "```" + (item.language ?? "") + "\n" + body + (body.endsWith("\n") ? "" : "\n") + "```";
}

function truncateToTokens(text: string, maxTokens: number, count: (t: string) => number): { text: string; truncated: boolean } {
  if (count(text) <= maxTokens) return { text, truncated: false };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (count(text.slice(0, mid)) <= maxTokens) low = mid;
    else high = mid - 1;
  }
  return { text: text.slice(0, low), truncated: true };
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

  delta(items: readonly ContextItem[], budget: ContextBudget, skipped: readonly ContextChipData[] = []): ContextDelta {
    const parts: string[] = [];
    const chips: ContextChipData[] = [...skipped];
    const updates = new Map<string, Sent | undefined>();
    let used = 0;
    const fits = (text: string) => used + budget.countTokens(text) <= budget.maxTokensPerTurn;

    const present = new Set(items.map((i) => i.id));
    for (const [id, previous] of this.sent) {
      if (present.has(id)) continue;
      const note = `(${previous.label} is no longer in context.)`;
      parts.push(note);
      used += budget.countTokens(note);
      chips.push({ label: previous.label, kind: "removed" });
      updates.set(id, undefined);
    }

    for (const item of items) {
      const hash = hashOf(item.content);
      const previous = this.sent.get(item.id);
      if (previous?.hash === hash) continue;
      const limited = truncateToTokens(item.content, budget.maxTokensPerItem, budget.countTokens);
      const full = `${item.label}${limited.truncated ? " (truncated)" : ""}:\n${fence(item, limited.text)}`;
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
        continue;
      }
      parts.push(rendered);
      used += budget.countTokens(rendered);
      chips.push({ label: item.label, kind, detail: limited.truncated ? "truncated" : undefined });
      updates.set(item.id, { hash, content: item.content, label: item.label, truncated: limited.truncated });
    }

    const text = parts.length > 0 ? `Context from the workspace:\n\n${parts.join("\n\n")}` : "";
    return {
      text,
      chips,
      commit: () => {
        for (const [id, value] of updates) {
          if (value) this.sent.set(id, value);
          else this.sent.delete(id);
        }
      },
    };
  }
}
