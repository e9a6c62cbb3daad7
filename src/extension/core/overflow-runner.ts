// Runs the overflow policy inside a turn: ask the model for a summary (in the current state,
// within the margin, rendered by the same history rule as turns), reset the state, and seed
// it with what the policy keeps. A Stop or a failure during the summary leaves the
// conversation as it was; once the state is reset, the prompt and the ledger both hold the
// seed (its tokens pending until the turn prefills them), so they never come apart.

import { throwIfAborted } from "./abort";
import type { ChatMessage } from "./chat-template";
import type { ConversationPrompt, HistoryRendering } from "./conversation-prompt";
import type { Tokenizer } from "./engine";
import { CancelledError } from "./errors";
import { planSummarySeed, planTruncateSeed, SUMMARY_REQUEST, type TokenBudget } from "./overflow";
import { answerOf, type ReasoningMarkers } from "./reasoning";
import type { Session } from "./session";
import type { OverflowEvent, OverflowStrategy } from "./stats";

export interface OverflowOptions {
  readonly overflow: OverflowStrategy;
  readonly systemPrompt: string;
  readonly history?: HistoryRendering;
}

export class OverflowRunner {
  constructor(
    private readonly session: Session,
    private readonly prompt: ConversationPrompt,
    private readonly tokenizer: Tokenizer,
    private readonly markers: ReasoningMarkers,
  ) {}

  async run(user: ChatMessage, budget: TokenBudget, options: OverflowOptions, signal: AbortSignal): Promise<OverflowEvent> {
    const rendering = options.history ?? "template";
    const positionBefore = this.session.position;
    const history = this.prompt.messages;
    const summary = options.overflow === "summarize" ? await this.summarize(budget, rendering, signal) : undefined;
    const plan = summary !== undefined ? planSummarySeed : planTruncateSeed;
    const seed = plan({
      systemPrompt: options.systemPrompt,
      summary,
      history,
      user,
      budget,
      measure: (messages, gen) => this.prompt.measureFresh(messages, gen),
    });
    throwIfAborted(signal);
    await this.session.reset();
    // The seed goes into the ledger as pending tokens, not prefilled here: the turn prefills
    // them with its own tokens inside its try/undo, so a Stop or a failed engine call there
    // leaves the seed pending (prompt and ledger agree) and the next turn prefills all of it.
    this.session.appendPending(this.prompt.seed(seed, rendering));
    return {
      strategy: summary !== undefined ? "summarize" : "truncate",
      positionBefore,
      positionAfter: this.session.position,
      tokensFreed: positionBefore - this.session.position,
      summary,
    };
  }

  /** Ask the model, in the current state and within the margin, to summarize; the answer only, never its thoughts. */
  private async summarize(budget: TokenBudget, rendering: HistoryRendering, signal: AbortSignal): Promise<string | undefined> {
    const request = this.prompt.plan([{ role: "user", content: SUMMARY_REQUEST }], true, rendering);
    const room = budget.capacity - request.keep.tokens - request.tokens.length;
    if (room < 16) return undefined;
    const undo = await this.session.rewind(request.keep.tokens);
    try {
      await this.session.prefill(request.tokens, signal);
      const tokens: number[] = [];
      const stream = this.session.generate({ maxTokens: Math.min(room - 1, budget.margin), sampling: { temperature: 0 } }, signal);
      for await (const token of stream) tokens.push(token);
      if (this.session.lastStopReason === "cancelled") throw new CancelledError();
      return answerOf(this.tokenizer.decode(tokens), this.markers).trim() || undefined;
    } catch (error) {
      await undo();
      throw error;
    }
  }
}
