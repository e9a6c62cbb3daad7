// The public face of the core: one conversation on one KV state, behind a FIFO queue.
// The CLI and each chat panel own one Conversation; the engine is shared.

import type { CacheCheck } from "./cache-check";
import { ChatTemplate, type ChatMessage } from "./chat-template";
import type { Engine } from "./engine";
import type { ReasoningMarkers } from "./reasoning";
import { Session } from "./session";
import { SessionQueue } from "./session-queue";
import type { TurnStats } from "./stats";
import { TurnRunner, type ConversationState, type TurnCallbacks, type TurnInput, type TurnOptions } from "./turn-runner";


/**
 * Writes the cache to `path`: the whole cache, or with `from` only its cells from that
 * position on (Session.saveSnapshotDelta). Resolves to the bytes written, or undefined when
 * there was nothing to write or the backend cannot.
 */
export type SnapshotWriter = (path: string, from?: number) => Promise<number | undefined>;

export const DEFAULT_TURN_OPTIONS: TurnOptions = {
  maxTokens: 512,
  sampling: { temperature: 0 },
  strategy: "stateful",
  overflow: "summarize",
  systemPrompt: "You are a helpful coding assistant. Answer concisely and put code in fenced code blocks.",
};

export interface ConversationOptions {
  readonly turn?: Partial<TurnOptions>;
  /** Tokens per prefill chunk: cancel is honoured within one chunk. Defaults to 128. */
  readonly prefillChunk?: number;
}

export class Conversation {
  private readonly queue = new SessionQueue();
  private disposed = false;

  private constructor(
    readonly engine: Engine,
    private readonly session: Session,
    private readonly runner: TurnRunner,
  ) {}

  static async create(engine: Engine, options: ConversationOptions = {}): Promise<Conversation> {
    // A template the sandbox stops refuses the model here, before a state is made for it.
    const template = new ChatTemplate(engine.chatTemplate, {
      bosToken: engine.tokenizer.bos?.text,
      eosToken: engine.tokenizer.eosText,
      modelName: engine.info.modelName,
    });
    template.probe();
    const state = await engine.createState();
    const session = new Session(state, engine.tokenizer, options.prefillChunk ?? 128);
    const runner = new TurnRunner(engine, template, session, { ...DEFAULT_TURN_OPTIONS, ...options.turn });
    return new Conversation(engine, session, runner);
  }

  get position(): number {
    return this.session.position;
  }

  get capacity(): number {
    return this.session.capacity;
  }

  /** Exact tokens the cache holds (for tests and diagnostics). */
  get ledger(): readonly number[] {
    return this.session.tokens;
  }

  /** The reasoning markers the model's template declares (`<think>` … `</think>` by default). */
  get reasoningMarkers(): ReasoningMarkers {
    return this.runner.reasoningMarkers;
  }

  get messages(): readonly ChatMessage[] {
    return this.runner.prompt.messages;
  }

  get busy(): boolean {
    return this.queue.busy;
  }

  setOptions(options: Partial<TurnOptions>): void {
    this.runner.setOptions({ ...DEFAULT_TURN_OPTIONS, ...options });
  }

  /** Queue a turn. Resolves with its stats; rejects with a StatefulChatError (CancelledError if stopped before the reply began). */
  send(input: TurnInput, callbacks?: TurnCallbacks): Promise<TurnStats> {
    return this.queue.enqueue("send", (signal) => this.runner.run(input, signal, callbacks));
  }

  /** Stop the running generation or prefill; queued turns still run. */
  stop(): boolean {
    return this.queue.abortRunning();
  }

  /** Stop whatever runs, drop queued turns (CancelledError), then start a fresh state and an empty conversation. */
  reset(): Promise<void> {
    this.queue.cancelWaiting();
    this.queue.abortRunning();
    return this.queue.enqueue("reset", async () => {
      await this.session.reset();
      this.runner.clear();
    });
  }

  /** Rebuild a saved conversation; its tokens are prefilled on the next turn. */
  restore(messages: readonly ChatMessage[]): Promise<void> {
    return this.queue.enqueue("restore", () => this.runner.restoreFromMessages(messages));
  }

  /**
   * Queued like a turn: hands `write` the conversation and a function that writes the cache
   * to a path (undefined when there is nothing to save or the backend cannot).
   */
  saveSnapshot<T>(write: (conversation: ConversationState, writeCache: SnapshotWriter) => Promise<T>): Promise<T> {
    return this.queue.enqueue("other", () =>
      write(this.runner.exportState(), (path, from) => (from === undefined ? this.session.saveSnapshot(path) : this.session.saveSnapshotDelta(path, from))),
    );
  }

  /** Continue a saved conversation exactly; adopts the cache at `cachePath` (then its `deltas`) when it matches. Returns whether it did. */
  resume(conversation: ConversationState, cachePath?: string, deltas: readonly string[] = []): Promise<boolean> {
    return this.queue.enqueue("restore", () => this.runner.restoreFromSnapshot(conversation, cachePath, deltas));
  }

  whenIdle(): Promise<void> {
    return this.queue.whenIdle();
  }

  /** Ledger == cache by the engine's own count (core/cache-check.ts), in turn with the other operations. */
  probeCache(): Promise<CacheCheck> {
    return this.queue.enqueue("other", () => this.session.probeCache());
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.queue.dispose();
    await this.session.dispose();
  }
}
