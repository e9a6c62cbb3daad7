// The conversation as the model sees it: the messages whose rendering the ledger holds, and
// that rendering as segments of text and tokens. Each turn renders the whole conversation
// with the model's template and plans how the ledger follows it (invariant 2):
// - the render extends the ledger: append the new tail (the usual case, nothing rewound);
// - it differs within the last exchange (a template that drops earlier thoughts, or an
//   opened reasoning block in the generation prompt): rewind to the first differing token,
//   never further, and prefill the render from there;
// - it rewrites older history (a system prompt moved into the last user message), or the
//   setting is `asGenerated`: keep the ledger and append the template's rendering of what
//   follows the previous reply, so only new tokens are prefilled.

import { commonPrefixLength, type ChatMessage, type ChatTemplate } from "./chat-template";
import type { Tokenizer } from "./engine";
import { PromptSegments, type Boundary } from "./prompt-segments";

/** `template`: exactly what the model's template renders, rewinding when needed. `asGenerated`: never rewind. */
export type HistoryRendering = "template" | "asGenerated";

export interface PromptPlan {
  /** Ledger tokens (and text) kept; the rest of the ledger is rewound. */
  readonly keep: Boundary;
  /** Text appended after the kept part, and its tokens. */
  readonly text: string;
  readonly tokens: number[];
  /** Characters at the end of `text` that are the generation prompt (assistant header). */
  readonly generationPromptChars: number;
  /** `tokens` starts with a BOS token that the template did not write. */
  readonly bosAdded: boolean;
}

/**
 * Everything the prompt knows, as plain data: a KV snapshot stores it so that a restored
 * chat continues exactly as if it had never stopped (same ledger, same rewind floor).
 */
export interface PromptState {
  readonly messages: readonly ChatMessage[];
  readonly segments: ReadonlyArray<{ readonly text: string; readonly tokens: readonly number[] }>;
  readonly rewindFloor: number;
}

/** Stands in for the previous reply to find where the template renders what follows it. */
const HISTORY_END = "\u2063<<stateful-chat:end-of-history>>\u2063";

export class ConversationPrompt {
  private messageList: ChatMessage[] = [];
  private readonly segments: PromptSegments;
  /** Rewinds never go below this token: the start of the previous turn's generation prompt. */
  private rewindFloor = 0;

  constructor(
    private readonly template: ChatTemplate,
    private readonly tokenizer: Tokenizer,
  ) {
    this.segments = new PromptSegments(tokenizer);
  }

  get messages(): readonly ChatMessage[] {
    return this.messageList;
  }

  get text(): string {
    return this.segments.text;
  }

  get isEmpty(): boolean {
    return this.messageList.length === 0 && this.segments.isEmpty;
  }

  /** How the ledger follows the template when `added` messages join the conversation. */
  plan(added: readonly ChatMessage[], addGenerationPrompt: boolean, rendering: HistoryRendering): PromptPlan {
    const all = [...this.messageList, ...added];
    const next = this.template.render(all, { addGenerationPrompt });
    const generationPromptChars = addGenerationPrompt ? this.generationPromptLength(all, next) : 0;
    const current = this.segments.text;
    const end: Boundary = { tokens: this.segments.length, chars: current.length };
    if (this.segments.isEmpty) return this.make(end, next, generationPromptChars);
    if (next.startsWith(current)) return this.make(end, next.slice(current.length), generationPromptChars);
    if (rendering === "template") {
      const keep = this.segments.boundaryAtOrBefore(commonPrefixLength(current, next));
      if (keep.tokens >= this.rewindFloor) return this.make(keep, next.slice(keep.chars), generationPromptChars);
    }
    const tail = this.renderAfterHistory(added, addGenerationPrompt);
    if (tail !== undefined) return this.make(end, tail, generationPromptChars);
    // Nothing marks where the history ends (no previous reply): follow the template.
    const keep = this.segments.boundaryAtOrBefore(commonPrefixLength(current, next));
    return this.make(keep, next.slice(keep.chars), generationPromptChars);
  }

  /** The ledger now holds the plan's text after its kept part, followed by the generated reply. */
  commit(added: readonly ChatMessage[], plan: PromptPlan, reply?: { text: string; tokens: readonly number[] }): void {
    this.segments.truncate(plan.keep);
    if (plan.bosAdded) {
      // A segment of its own: BOS has no text in the render, so it must not hide a boundary.
      this.segments.append({ text: "", tokens: plan.tokens.slice(0, 1) });
      this.segments.append({ text: plan.text, tokens: plan.tokens.slice(1) });
    } else this.segments.append({ text: plan.text, tokens: plan.tokens });
    this.messageList.push(...added);
    const promptEnd = this.segments.text.length - plan.generationPromptChars;
    this.rewindFloor = this.segments.boundaryAtOrBefore(promptEnd).tokens;
    if (reply !== undefined) {
      this.messageList.push({ role: "assistant", content: reply.text });
      this.segments.append({ text: reply.text, tokens: reply.tokens });
    }
  }

  /** Token count of a fresh conversation made of `messages` (for fit checks). */
  measureFresh(messages: readonly ChatMessage[], addGenerationPrompt: boolean): number {
    const text = this.template.render(messages, { addGenerationPrompt });
    const extra = this.tokenizer.bos && !text.startsWith(this.tokenizer.bos.text) ? 1 : 0;
    return this.tokenizer.encode(text, { specials: true }).length + extra;
  }

  /**
   * Start over from `messages` (a seed after overflow, or a restored transcript) and return
   * the tokens the ledger holds for them. `template` renders them in one go; `asGenerated`
   * replays them turn by turn, so replies sit in the ledger as the model produced them.
   */
  seed(messages: readonly ChatMessage[], rendering: HistoryRendering): number[] {
    this.clear();
    if (rendering === "template" || !messages.some((m) => m.role === "assistant")) {
      if (messages.length > 0) this.commit(messages, this.plan(messages, false, rendering));
    } else {
      let pending: ChatMessage[] = [];
      for (const message of messages) {
        if (message.role !== "assistant") {
          pending.push(message);
          continue;
        }
        const plan = this.plan(pending, true, rendering);
        this.commit(pending, plan, { text: message.content, tokens: this.encode(message.content) });
        pending = [];
      }
      if (pending.length > 0) this.commit(pending, this.plan(pending, false, rendering));
    }
    this.rewindFloor = 0;
    return this.segments.tokens();
  }

  exportState(): PromptState {
    return {
      messages: this.messageList.map((m) => ({ ...m })),
      segments: this.segments.all.map((s) => ({ text: s.text, tokens: [...s.tokens] })),
      rewindFloor: this.rewindFloor,
    };
  }

  /** Becomes the prompt `state` describes; returns the ledger tokens it holds. */
  importState(state: PromptState): number[] {
    this.clear();
    for (const segment of state.segments) this.segments.append(segment);
    this.messageList = state.messages.map((m) => ({ ...m }));
    this.rewindFloor = Math.min(state.rewindFloor, this.segments.length);
    return this.segments.tokens();
  }

  clear(): void {
    this.messageList = [];
    this.segments.clear();
    this.rewindFloor = 0;
  }

  private make(keep: Boundary, text: string, generationPromptChars: number): PromptPlan {
    const tokens = this.encode(text);
    const bos = this.tokenizer.bos;
    const bosAdded = keep.tokens === 0 && !!bos && !text.startsWith(bos.text);
    if (bosAdded) tokens.unshift(bos.id);
    return { keep, text, tokens, generationPromptChars: Math.min(generationPromptChars, text.length), bosAdded };
  }

  private encode(text: string): number[] {
    return this.tokenizer.encode(text, { specials: true });
  }

  /** The template's rendering of `added` after the previous reply, or undefined when it cannot be told apart. */
  private renderAfterHistory(added: readonly ChatMessage[], addGenerationPrompt: boolean): string | undefined {
    if (this.messageList.at(-1)?.role !== "assistant") return undefined;
    const marked: ChatMessage[] = [...this.messageList.slice(0, -1), { role: "assistant", content: HISTORY_END }, ...added];
    const text = this.template.render(marked, { addGenerationPrompt });
    const at = text.lastIndexOf(HISTORY_END);
    return at < 0 ? undefined : text.slice(at + HISTORY_END.length);
  }

  /** Characters the generation prompt adds at the end of `rendered` (0 when the template does not append it). */
  private generationPromptLength(messages: readonly ChatMessage[], rendered: string): number {
    const without = this.template.render(messages, { addGenerationPrompt: false });
    return rendered.startsWith(without) ? rendered.length - without.length : 0;
  }
}
