// The two sides of the bench as ScenarioSides: our core on a loaded engine, and a running
// llama-server.

import type { Engine } from "../../extension/core/engine";
import type { LlamaServerProcess } from "./llama-server-process";
import { OurChat } from "./our-chat";
import { PeerChat } from "./peer-chat";
import type { ScenarioSide } from "./scenarios";
import type { TurnMeasure } from "./turn-measure";

export interface ChatSettings {
  readonly systemPrompt: string;
  readonly maxTokens: number;
}

/**
 * Our side; with `prompts`, each turn's measure is mapped to the prompt tokens the session held
 * before the reply (kept out of the JSON: greedy identity's gap lookup needs them).
 */
export function ourSide(engine: Engine, settings: ChatSettings, prompts?: WeakMap<TurnMeasure, readonly number[]>): ScenarioSide {
  return {
    context: "incremental",
    countTokens: (text) => engine.tokenizer.encode(text, { specials: false }).length,
    open: async (chat) => {
      const ours = await OurChat.create(engine, { ...settings, chat });
      return {
        send: async (text, context) => {
          const measure = await ours.send(text, context);
          if (prompts && measure.promptTokens !== undefined) prompts.set(measure, ours.ledger.slice(0, measure.promptTokens));
          return measure;
        },
        dispose: () => ours.dispose(),
      };
    },
  };
}

export function peerSide(server: LlamaServerProcess, capacity: number, settings: ChatSettings, fit: "prune" | "none" = "prune"): ScenarioSide {
  return {
    context: "whole",
    // The peer attaches whole files, it never budgets them; a rough count is enough here.
    countTokens: (text) => Math.ceil(text.length / 4),
    open: async (chat) => {
      const peer = new PeerChat({ baseUrl: server.baseUrl, capacity, chat, fit, ...settings });
      return { send: (text, context) => peer.send(text, context), dispose: async () => {} };
    },
  };
}
