// Runs one turn on a session: render the conversation with the model's template, check the
// overflow policy, rewind to the first difference when the template re-rendered the last
// exchange, prefill only what follows, stream the reply, record stats. It is called by
// Conversation inside the session queue, so it never runs twice at once on one session.

import type { ChatMessage, ChatTemplate } from "./chat-template";
import { ConversationPrompt, type HistoryRendering, type PromptState } from "./conversation-prompt";
import type { Engine, SamplingOptions } from "./engine";
import { EmptyMessageError, MessageTooLargeError } from "./errors";
import {
  defaultMargin,
  promptLimit,
  replyReserve,
  systemMessage,
  wouldOverflow,
  type TokenBudget,
} from "./overflow";
import { OverflowRunner } from "./overflow-runner";
import { opensReasoning, reasoningMarkersOf, ThinkingCounter, type ReasoningMarkers } from "./reasoning";
import type { Session } from "./session";
import { speculationOf, turnStatsOf, TurnClock, type OverflowEvent, type OverflowStrategy, type SpeculationStats, type TurnStats, type TurnStrategy } from "./stats";
import { StreamDecoder } from "./stream-decoder";

export interface TurnOptions {
  readonly maxTokens: number;
  readonly sampling: SamplingOptions;
  readonly strategy: TurnStrategy;
  readonly overflow: OverflowStrategy;
  readonly systemPrompt: string;
  /** How earlier turns are rendered: as the model's template renders them (default), or as generated. */
  readonly history?: HistoryRendering;
  /** Overrides the default overflow margin (tokens kept free below capacity). */
  readonly margin?: number;
}

export interface TurnInput {
  readonly text: string;
  /**
   * Workspace context for this turn (a delta), placed before the question. As a function it
   * is asked again with `fresh: true` when an overflow reset the state during this turn, so
   * it can send full items instead of diffs against content the new state no longer holds.
   */
  readonly context?: string | ((fresh: boolean) => string);
}

/** What a running turn is doing, in order (a turn without overflow skips `overflow`). */
export const TURN_PHASES = ["overflow", "prefill", "decode"] as const;
export type TurnPhase = (typeof TURN_PHASES)[number];

export interface TurnCallbacks {
  /** The turn left the queue and starts now. */
  onStart?(): void;
  /** The turn enters a phase: the overflow policy (its summary), the prompt's prefill (with any re-prefill after an engine restart), the reply. */
  onPhase?(phase: TurnPhase): void;
  onText?(text: string): void;
  onOverflow?(event: OverflowEvent): void;
}

/** A conversation as plain data: what a KV snapshot stores beside the cache. */
export interface ConversationState {
  readonly version: 1;
  readonly prompt: PromptState;
  readonly turns: number;
}

interface Generation {
  readonly tokens: number[];
  readonly reply: string;
  readonly stopReason: TurnStats["stopReason"];
  readonly thinkingTokens: number;
}

export class TurnRunner {
  readonly prompt: ConversationPrompt;
  readonly reasoningMarkers: ReasoningMarkers;
  private readonly overflowRunner: OverflowRunner;
  private turns = 0;
  private restorePending = false;
  /** The restored state came from a KV snapshot (the first turn after says so). */
  private snapshotLoaded = false;

  constructor(
    private readonly engine: Engine,
    template: ChatTemplate,
    private readonly session: Session,
    private options: TurnOptions,
  ) {
    this.prompt = new ConversationPrompt(template, engine.tokenizer);
    this.reasoningMarkers = markersOf(template);
    this.overflowRunner = new OverflowRunner(session, this.prompt, engine.tokenizer, this.reasoningMarkers);
  }

  private get rendering(): HistoryRendering {
    return this.options.history ?? "template";
  }

  get turnCount(): number {
    return this.turns;
  }

  setOptions(options: TurnOptions): void {
    this.options = options;
  }

  budget(): TokenBudget {
    const capacity = this.session.capacity;
    return {
      capacity,
      margin: this.options.margin ?? defaultMargin(capacity),
      reserve: replyReserve(this.options.maxTokens, capacity),
    };
  }

  async run(input: TurnInput, signal: AbortSignal, callbacks: TurnCallbacks = {}): Promise<TurnStats> {
    callbacks.onStart?.();
    let user = this.userMessage(input, this.prompt.isEmpty);
    const budget = this.budget();
    const clock = new TurnClock();
    const counters = { ...this.session.counters };
    this.assertMessageFits(user, budget);

    let added = this.prompt.isEmpty ? [...this.systemMessages(), user] : [user];
    let plan = this.prompt.plan(added, true, this.rendering);
    let overflow: OverflowEvent | undefined;
    if (wouldOverflow(plan.keep.tokens, plan.tokens.length, budget)) {
      callbacks.onPhase?.("overflow");
      overflow = await this.overflowRunner.run(user, budget, this.options, signal);
      callbacks.onOverflow?.(overflow);
      user = this.userMessage(input, true);
      added = this.prompt.isEmpty ? [...this.systemMessages(), user] : [user];
      plan = this.prompt.plan(added, true, this.rendering);
    }
    callbacks.onPhase?.("prefill");
    // A state lost under us (engine process restarted) is re-prefilled from the ledger.
    await this.session.resyncWithState();
    const lost = this.session.stateWasLost;
    const restored = this.restorePending;
    const fromSnapshot = this.snapshotLoaded;
    const rewound = this.session.position - plan.keep.tokens;
    const cachedBefore = Math.min(this.session.evaluated, plan.keep.tokens);
    const undo = await this.session.rewind(plan.keep.tokens);
    if (this.options.strategy === "naive") await this.session.discardState();

    let generation: Generation;
    let speculation: SpeculationStats | undefined;
    try {
      await this.session.prefill(plan.tokens, signal);
      this.restorePending = false;
      this.snapshotLoaded = false;
      this.session.acknowledgeStateLost();
      const beforeReply = { ...this.session.counters };
      callbacks.onPhase?.("decode");
      generation = await this.generate(budget, clock, signal, callbacks);
      speculation = speculationOf(beforeReply, this.session.counters);
    } catch (error) {
      // A failed or cancelled prompt, or a failed engine call, drops this turn entirely and
      // leaves the session as it was before it.
      await undo();
      throw error;
    }
    this.prompt.commit(added, plan, { text: generation.reply, tokens: generation.tokens });
    this.turns++;
    return turnStatsOf({
      turn: this.turns,
      countersBefore: counters,
      countersAfter: this.session.counters,
      speculation,
      kept: plan.keep.tokens,
      cachedBefore,
      rewound,
      position: this.session.position,
      capacity: this.session.capacity,
      serverCached: this.session.lastServerCached,
      clock,
      reply: { text: generation.reply, tokens: generation.tokens.length, thinkingTokens: generation.thinkingTokens, stopReason: generation.stopReason },
      strategy: this.options.strategy,
      overflow,
      restored,
      fromSnapshot,
      stateLost: lost,
    });
  }

  /** Forget the conversation (the caller resets the session state). */
  clear(): void {
    this.prompt.clear();
    this.turns = 0;
    this.restorePending = false;
    this.snapshotLoaded = false;
  }

  exportState(): ConversationState {
    return { version: 1, prompt: this.prompt.exportState(), turns: this.turns };
  }

  /**
   * Continue a saved conversation exactly: its prompt and ledger as they were, and the cache
   * from `cachePath` (and the `deltas` saved after it) when it holds exactly that ledger
   * (else it is re-prefilled lazily). Returns whether the cache was adopted.
   */
  async restoreFromSnapshot(state: ConversationState, cachePath?: string, deltas: readonly string[] = []): Promise<boolean> {
    const tokens = this.prompt.importState(state.prompt);
    await this.session.restore(tokens);
    this.turns = state.turns;
    this.restorePending = tokens.length > 0;
    this.snapshotLoaded = cachePath !== undefined && (await this.session.loadSnapshot(cachePath, deltas));
    return this.snapshotLoaded;
  }

  /** Rebuild from a saved transcript; the tokens are prefilled lazily on the next turn. */
  async restoreFromMessages(messages: readonly ChatMessage[]): Promise<void> {
    const withSystem = messages[0]?.role === "system" ? messages : [...this.systemMessages(), ...messages];
    const tokens = this.prompt.seed(withSystem, this.rendering);
    await this.session.restore(tokens);
    this.restorePending = tokens.length > 0;
  }

  private userMessage(input: TurnInput, fresh: boolean): ChatMessage {
    const text = input.text.trim();
    if (!text) throw new EmptyMessageError();
    const context = (typeof input.context === "function" ? input.context(fresh) : input.context)?.trim();
    return { role: "user", content: context ? `${context}\n\n${text}` : text };
  }

  private systemMessages(): ChatMessage[] {
    return systemMessage(this.options.systemPrompt);
  }

  private assertMessageFits(user: ChatMessage, budget: TokenBudget): void {
    const alone = this.prompt.measureFresh([...this.systemMessages(), user], true);
    const limit = promptLimit(budget);
    if (alone > limit) throw new MessageTooLargeError(alone, limit);
  }

  private async generate(budget: TokenBudget, clock: TurnClock, signal: AbortSignal, callbacks: TurnCallbacks): Promise<Generation> {
    const decoder = new StreamDecoder(this.engine.tokenizer);
    const thinking = new ThinkingCounter(this.reasoningMarkers);
    const tokens: number[] = [];
    const room = budget.capacity - budget.margin - this.session.position;
    const maxTokens = Math.max(1, Math.min(this.options.maxTokens, room));
    const stream = this.session.generate({ maxTokens, sampling: this.options.sampling }, signal);
    for await (const token of stream) {
      tokens.push(token);
      clock.tokenArrived();
      const text = decoder.push(token);
      thinking.push(text);
      if (text) callbacks.onText?.(text);
    }
    const rest = decoder.flush();
    if (rest) callbacks.onText?.(rest);
    const stopReason = this.session.lastStopReason ?? "max_tokens";
    return { tokens, reply: this.engine.tokenizer.decode(tokens), stopReason, thinkingTokens: thinking.count };
  }
}

/** The template's reasoning markers, and whether its generation prompt opens the block. */
function markersOf(template: ChatTemplate): ReasoningMarkers {
  const markers = reasoningMarkersOf(template.source);
  try {
    const probe: ChatMessage[] = [{ role: "user", content: "?" }];
    const withPrompt = template.render(probe, { addGenerationPrompt: true });
    const without = template.render(probe, { addGenerationPrompt: false });
    const prompt = withPrompt.startsWith(without) ? withPrompt.slice(without.length) : "";
    return { ...markers, openedByPrompt: opensReasoning(prompt, markers) };
  } catch {
    return markers; // A template that cannot render is reported when a turn renders it.
  }
}
