// Overflow policy: when a turn would not fit, decide what a fresh state is seeded with.
// Pure functions over messages and a token-measuring callback, so they are unit-tested
// without a model.

import type { ChatMessage } from "./chat-template";

export interface TokenBudget {
  readonly capacity: number;
  /** Room kept free for the summary request and the summary itself. */
  readonly margin: number;
  /** Room kept free for the reply. */
  readonly reserve: number;
}

/** Tokens of margin kept below capacity: enough to ask for and receive a summary. */
export function defaultMargin(capacity: number): number {
  return Math.max(64, Math.min(512, Math.floor(capacity / 4)));
}

/** The reply budget that a turn may reserve; at most a quarter of the context. */
export function replyReserve(maxTokens: number, capacity: number): number {
  return Math.max(1, Math.min(maxTokens, Math.floor(capacity / 4)));
}

export function wouldOverflow(position: number, newTokens: number, budget: TokenBudget): boolean {
  return position + newTokens + budget.reserve > budget.capacity - budget.margin;
}

export function promptLimit(budget: TokenBudget): number {
  return budget.capacity - budget.margin - budget.reserve;
}

export const SUMMARY_REQUEST =
  "Summarize our conversation so far in a few short sentences. Keep the facts, names, code identifiers and decisions needed to continue it. Reply with the summary only.";

export interface SeedPlanInput {
  readonly systemPrompt: string;
  readonly summary?: string;
  /** Messages of the conversation so far (system messages are ignored: the seed has its own). */
  readonly history: readonly ChatMessage[];
  readonly user: ChatMessage;
  readonly budget: TokenBudget;
  /** Token count of a fresh conversation made of these messages. */
  readonly measure: (messages: readonly ChatMessage[], addGenerationPrompt: boolean) => number;
}

export function systemMessage(systemPrompt: string, summary?: string): ChatMessage[] {
  const parts = [systemPrompt.trim()];
  if (summary && summary.trim()) parts.push(`Summary of the earlier conversation:\n${summary.trim()}`);
  const content = parts.filter((p) => p.length > 0).join("\n\n");
  return content ? [{ role: "system", content }] : [];
}

/** User/assistant pairs, oldest first. */
export function exchanges(history: readonly ChatMessage[]): ChatMessage[][] {
  const pairs: ChatMessage[][] = [];
  const rest = history.filter((m) => m.role !== "system");
  for (let i = 0; i + 1 < rest.length; i += 2) {
    if (rest[i].role === "user" && rest[i + 1].role === "assistant") pairs.push([rest[i], rest[i + 1]]);
  }
  return pairs;
}

function fits(input: SeedPlanInput, seed: readonly ChatMessage[], share = 1): boolean {
  return input.measure([...seed, input.user], true) <= promptLimit(input.budget) * share;
}

/**
 * Kept history may use at most half of the prompt room, so the turns after an overflow have
 * space to grow instead of overflowing again at once (summarizing every turn).
 */
const KEPT_HISTORY_SHARE = 0.5;

/** Summarize: system + summary + the last exchange if it leaves room + nothing else. */
export function planSummarySeed(input: SeedPlanInput): ChatMessage[] {
  const system = systemMessage(input.systemPrompt, input.summary);
  const last = exchanges(input.history).at(-1);
  if (last && fits(input, [...system, ...last], KEPT_HISTORY_SHARE)) return [...system, ...last];
  for (const seed of [system, systemMessage(input.systemPrompt)]) if (fits(input, seed)) return seed;
  return [];
}

/** Truncate: system + as many of the most recent exchanges as leave room. */
export function planTruncateSeed(input: SeedPlanInput): ChatMessage[] {
  const system = systemMessage(input.systemPrompt);
  const pairs = exchanges(input.history);
  let kept: ChatMessage[] = [];
  for (let i = pairs.length - 1; i >= 0; i--) {
    const candidate = [...pairs[i], ...kept];
    if (!fits(input, [...system, ...candidate], KEPT_HISTORY_SHARE)) break;
    kept = candidate;
  }
  return fits(input, [...system, ...kept]) ? [...system, ...kept] : [];
}
