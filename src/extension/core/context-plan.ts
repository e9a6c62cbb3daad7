// What the next message carries, as chips and as prompt text, computed in one place so the
// two cannot disagree: the composer shows `chips`; sending with the chips' ids attaches
// `delta.text`, built from exactly those items. Items the user set aside are retained (the
// model keeps what it saw; no "removed" note is sent for them).

import type { ContextBudget, ContextDelta, ContextItem, ContextKind, ContextOrigin } from "./context-delta";
import type { ContextLedger } from "./context-delta";

/** An item that may not be sent (secrets, binary, ignored, deleted…), with the reason shown. */
export interface RefusedItem {
  readonly id: string;
  readonly label: string;
  readonly kind: ContextKind;
  readonly origin: ContextOrigin;
  readonly reason: string;
}

interface PlannedChip {
  readonly id: string;
  readonly label: string;
  readonly kind: ContextKind;
  readonly state: "new" | "diff" | "known" | "skipped" | "removed";
  readonly tokens: number;
  readonly detail?: string;
  readonly origin: ContextOrigin;
  readonly pinnable: boolean;
}

export interface ContextPlanInput {
  readonly items: readonly ContextItem[];
  readonly refused: readonly RefusedItem[];
  /** Ids the user took off the next message. */
  readonly setAside: ReadonlySet<string>;
  /** When sending: the ids of the chips the user saw; nothing else is attached. */
  readonly chosen?: ReadonlySet<string>;
}

export interface ContextPlan {
  readonly chips: readonly PlannedChip[];
  readonly delta: ContextDelta;
}

export function planContext(ledger: ContextLedger, input: ContextPlanInput, budget: ContextBudget): ContextPlan {
  const included = (id: string) => !input.setAside.has(id) && (!input.chosen || input.chosen.has(id));
  const items = input.items.filter((item) => included(item.id));
  const refused = input.refused.filter((item) => included(item.id));
  // Not reported as removed: what the user set aside, and (when sending) whatever the chips did not show.
  const retain = new Set([...input.items.map((i) => i.id), ...input.refused.map((i) => i.id), ...ledger.knownIds()].filter((id) => !included(id)));
  const delta = ledger.delta(items, budget, {
    skipped: refused.map((r) => ({ label: r.label, kind: "skipped" as const, detail: r.reason })),
    retain,
  });
  const byId = new Map(items.map((item) => [item.id, item]));
  const chips: PlannedChip[] = refused.map((r) => ({
    id: r.id,
    label: r.label,
    kind: r.kind,
    state: "skipped",
    tokens: 0,
    detail: r.reason,
    origin: r.origin,
    pinnable: false,
  }));
  for (const entry of delta.entries) {
    const item = byId.get(entry.id);
    chips.push({
      ...entry,
      origin: item?.origin ?? "auto",
      pinnable: entry.kind === "file" && entry.state !== "removed",
    });
  }
  return { chips, delta };
}
