// What the panel shows of the core's figures: the webview's view types, built from the
// core's turn stats and the loaded engine.

import type { ChatSession } from "../core/chat-session";
import type { TurnStats } from "../core/stats";
import type { ModelView, TurnStatsView } from "../../webview/protocol/messages";

export function statsView(stats: TurnStats): TurnStatsView {
  return {
    prefilled: stats.prefilled,
    cached: stats.cached,
    position: stats.position,
    capacity: stats.capacity,
    ttftMs: stats.ttftMs,
    decodeTokensPerSec: stats.decodeTokensPerSec,
    replyTokens: stats.replyTokens,
    restored: stats.restored,
    rewound: stats.rewound,
    thinkingTokens: stats.thinkingTokens,
    resumed: stats.resumed,
    ...(stats.serverCached !== undefined ? { serverCached: stats.serverCached } : {}),
  };
}

export function modelView(session: ChatSession, notice: string | undefined): ModelView {
  const info = session.engine.info;
  return {
    name: info.modelName,
    backend: info.backend,
    capacity: session.capacity,
    details: info.details,
    notice,
    reasoning: session.reasoningMarkers,
  };
}
