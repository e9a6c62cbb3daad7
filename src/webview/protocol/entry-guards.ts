// parseHostMessage checks the fields every message needs, but not the optional nested
// ones (stats, chips, model, banner actions). These guards drop malformed nested parts so
// a bad field degrades one detail of the UI instead of throwing mid-render.
import { CONTEXT_CHIP_KINDS, type ContextChip, type ModelView, type TranscriptEntry, type TurnStatsView } from "./messages";

const STAT_NUMBERS = ["prefilled", "cached", "position", "capacity", "ttftMs", "decodeTokensPerSec", "replyTokens"] as const;
const CHIP_KINDS: readonly string[] = CONTEXT_CHIP_KINDS;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

export function validStats(value: unknown): TurnStatsView | undefined {
  if (!isRecord(value)) return undefined;
  for (const key of STAT_NUMBERS) if (typeof value[key] !== "number" || !Number.isFinite(value[key])) return undefined;
  const counts = {
    ...(isCount(value.rewound) ? { rewound: value.rewound } : {}),
    ...(isCount(value.thinkingTokens) ? { thinkingTokens: value.thinkingTokens } : {}),
  };
  const stats = Object.fromEntries(STAT_NUMBERS.map((key) => [key, value[key]])) as Record<(typeof STAT_NUMBERS)[number], number>;
  const resumed = isRecord(value.resumed) && (value.resumed.from === "snapshot" || value.resumed.from === "reprefill") && isCount(value.resumed.tokens)
    ? { resumed: { from: value.resumed.from as "snapshot" | "reprefill", tokens: value.resumed.tokens } }
    : {};
  const spec = value.speculation;
  const speculation =
    isRecord(spec) && isCount(spec.drafted) && isCount(spec.accepted) && isCount(spec.steps) && typeof spec.tokensPerStep === "number" && Number.isFinite(spec.tokensPerStep)
      ? { speculation: { drafted: spec.drafted, accepted: spec.accepted, steps: spec.steps, tokensPerStep: spec.tokensPerStep } }
      : {};
  return { ...stats, restored: value.restored === true, ...counts, ...resumed, ...speculation };
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function isChip(value: unknown): value is ContextChip {
  return isRecord(value) && typeof value.label === "string" && CHIP_KINDS.includes(value.kind as string) && (value.detail === undefined || typeof value.detail === "string");
}

export function validChips(value: unknown): readonly ContextChip[] | undefined {
  return Array.isArray(value) ? value.filter(isChip) : undefined;
}

export function validModel(value: unknown): ModelView | undefined {
  if (!isRecord(value) || typeof value.name !== "string" || typeof value.backend !== "string") return undefined;
  return {
    name: value.name,
    backend: value.backend,
    capacity: typeof value.capacity === "number" ? value.capacity : 0,
    details: typeof value.details === "string" ? value.details : "",
    ...(typeof value.notice === "string" ? { notice: value.notice } : {}),
    ...(value.starter === true ? { starter: true } : {}),
    ...(isMarkers(value.reasoning) ? { reasoning: { open: value.reasoning.open, close: value.reasoning.close, openedByPrompt: value.reasoning.openedByPrompt === true } } : {}),
  };
}

function isMarkers(value: unknown): value is { open: string; close: string; openedByPrompt?: unknown } {
  const ok = (s: unknown) => typeof s === "string" && s.length > 0 && s.length <= 64;
  return isRecord(value) && ok(value.open) && ok(value.close);
}

/** The entry with its optional parts checked (required parts were checked by parseHostMessage). */
export function cleanEntry(entry: TranscriptEntry): TranscriptEntry {
  const stats = validStats(entry.stats);
  const chips = validChips(entry.chips);
  return { id: entry.id, role: entry.role, text: entry.text, status: entry.status, ...(stats ? { stats } : {}), ...(chips ? { chips } : {}) };
}
