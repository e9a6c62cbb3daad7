// The one-line status under an assistant reply: how much of the prompt the KV cache
// already held versus what had to be prefilled, and how fast the reply came.
import type { EntryStatus, TurnStatsView } from "./messages";

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });

export function formatStats(stats: TurnStatsView): string {
  const parts = [
    `${integer.format(stats.cached)} cached`,
    ...(stats.serverCached !== undefined ? [`server reused ${integer.format(stats.serverCached)}`] : []),
    `${integer.format(stats.prefilled)} new`,
    ...(stats.rewound ? [`${integer.format(stats.rewound)} rewound`] : []),
    `first token ${integer.format(stats.ttftMs)} ms`,
    `${oneDecimal.format(stats.decodeTokensPerSec)} tok/s`,
    ...(stats.speculation && stats.speculation.drafted > 0
      ? [`${integer.format(stats.speculation.accepted)}/${integer.format(stats.speculation.drafted)} drafted accepted (${oneDecimal.format(stats.speculation.tokensPerStep)} tok/step)`]
      : []),
    `context ${contextPercent(stats)}%`,
  ];
  if (stats.resumed) parts.push(stats.resumed.from === "snapshot" ? "restored from snapshot" : `re-prefilled ${integer.format(stats.resumed.tokens)} tokens`);
  else if (stats.restored) parts.push("restored");
  return parts.join(" · ");
}

function contextPercent(stats: TurnStatsView): number {
  if (!(stats.capacity > 0)) return 0;
  return Math.min(100, Math.round((stats.position / stats.capacity) * 100));
}

/** The full line for an entry, or "" when there is nothing to say. */
export function statusLine(status: EntryStatus, stats: TurnStatsView | undefined): string {
  const parts: string[] = [];
  if (stats) parts.push(formatStats(stats));
  if (status === "stopped") parts.push("stopped");
  return parts.join(" · ");
}

/** Tooltip with the raw numbers, for when the short line is not enough. */
export function statsTooltip(stats: TurnStatsView): string {
  return [
    `Reused from the KV cache: ${stats.cached} tokens`,
    ...(stats.serverCached !== undefined
      ? [`The inference server reports reusing ${stats.serverCached} prompt tokens from its cache${stats.serverCached < stats.cached ? " (fewer than this side sent before: the server evicted or lost part of the conversation and recomputed it)" : ""}`]
      : []),
    `Prefilled this turn: ${stats.prefilled} tokens`,
    ...(stats.rewound ? [`Rewound: ${stats.rewound} tokens (the chat template re-rendered the last exchange)`] : []),
    `Time to first token: ${stats.ttftMs} ms`,
    `Reply: ${stats.replyTokens} tokens at ${oneDecimal.format(stats.decodeTokensPerSec)} tok/s`,
    `Context: ${stats.position} / ${stats.capacity} tokens`,
    ...(stats.speculation
      ? [`Speculative decoding: ${stats.speculation.accepted} of ${stats.speculation.drafted} drafted tokens accepted, ${stats.speculation.steps} model steps (${stats.speculation.tokensPerStep} tokens per step)`]
      : []),
    ...(stats.resumed?.from === "snapshot" ? [`KV cache restored from a snapshot: ${stats.resumed.tokens} tokens not re-prefilled`] : []),
    ...(stats.resumed?.from === "reprefill" ? [`Conversation re-prefilled after a restore or engine restart: ${stats.resumed.tokens} tokens`] : []),
    ...(stats.restored && !stats.resumed ? ["State restored from disk"] : []),
  ].join("\n");
}
