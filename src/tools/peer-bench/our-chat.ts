// One chat on our core (the same Conversation the panels and the CLI use), measured with
// the same client-side clock as the peer.

import { Conversation } from "../../extension/core/conversation";
import type { Engine } from "../../extension/core/engine";
import { TurnClock } from "../../extension/core/stats";
import type { TurnMeasure } from "./turn-measure";

export interface OurChatOptions {
  readonly systemPrompt: string;
  readonly maxTokens: number;
  readonly chat?: number;
}

export class OurChat {
  private constructor(
    private readonly session: Conversation,
    private readonly chat: number,
  ) {}

  static async create(engine: Engine, options: OurChatOptions): Promise<OurChat> {
    const session = await Conversation.create(engine, {
      turn: { maxTokens: options.maxTokens, systemPrompt: options.systemPrompt, sampling: { temperature: 0 } },
    });
    return new OurChat(session, options.chat ?? 0);
  }

  /** `context` is the workspace delta placed before the question (as the panels do). */
  async send(text: string, context?: string): Promise<TurnMeasure & { readonly reply: string }> {
    const clock = new TurnClock();
    const stats = await this.session.send({ text, context }, { onText: () => clock.tokenArrived() });
    const note = stats.overflow
      ? `${stats.overflow.strategy}: ${stats.overflow.positionBefore} → ${stats.overflow.positionAfter} tokens`
      : undefined;
    return {
      turn: stats.turn,
      chat: this.chat,
      prefilled: stats.prefilled,
      cached: stats.cached,
      ttftMs: clock.ttftMs,
      decodeTokensPerSec: clock.decodeRateOf(stats.replyTokens),
      replyTokens: stats.replyTokens,
      chunks: clock.arrivals,
      decodeMs: clock.decodeMs,
      reportedDecodeTokensPerSec: stats.decodeTokensPerSec,
      speculation: stats.speculation && { drafted: stats.speculation.drafted, accepted: stats.speculation.accepted, steps: stats.speculation.steps },
      contextFill: stats.position,
      capacity: stats.capacity,
      note,
      promptTokens: stats.cached + stats.prefilled,
      reply: stats.reply,
      replyTokenIds: this.session.ledger.slice(stats.cached + stats.prefilled, stats.cached + stats.prefilled + stats.replyTokens),
    };
  }

  /** Exactly the tokens the session's cache holds (prompt and replies), for comparing runs token for token. */
  get ledger(): readonly number[] {
    return this.session.ledger;
  }

  dispose(): Promise<void> {
    return this.session.dispose();
  }
}
