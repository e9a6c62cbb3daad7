// What the panel shows of the core's figures: the webview's view types, built from the
// core's turn stats and the loaded engine.

import type { Conversation } from "../core/conversation";
import type { TurnStats } from "../core/stats";
import type { ModelView, TurnStatsView } from "../../webview/protocol/messages";
import { basename } from "node:path";
import { DEFAULT_MODEL } from "../models/default-model";

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

/** `label`: the name the user knows the model by, when its file name is not it. */
export function modelView(conversation: Conversation, notice: string | undefined, label?: string): ModelView {
  const info = conversation.engine.info;
  return {
    name: label ?? info.modelName,
    backend: info.backend,
    capacity: conversation.capacity,
    details: info.details,
    notice,
    reasoning: conversation.reasoningMarkers,
    ...(isStarterModel(info.modelPath) ? { starter: true } : {}),
  };
}

/** The tiny default model (SmolLM2-135M): fine to try the chat, not for real questions. */
function isStarterModel(modelPath: string): boolean {
  return basename(modelPath) === DEFAULT_MODEL.fileName;
}
