// The conversation as the model sees it: the messages whose rendering the ledger holds,
// and that rendering's text. New turns are rendered with the model's template and only
// the suffix past this text is tokenized (invariant 2: earlier tokens are never rewritten).

import { appendOnlySuffix, type ChatMessage, type ChatTemplate } from "./chat-template";
import type { Tokenizer } from "./engine";

export interface PromptSuffix {
  readonly text: string;
  readonly tokens: number[];
}

export class ConversationPrompt {
  private messageList: ChatMessage[] = [];
  private renderedText = "";

  constructor(
    private readonly template: ChatTemplate,
    private readonly tokenizer: Tokenizer,
  ) {}

  get messages(): readonly ChatMessage[] {
    return this.messageList;
  }

  get text(): string {
    return this.renderedText;
  }

  get isEmpty(): boolean {
    return this.messageList.length === 0 && this.renderedText.length === 0;
  }

  /** Tokens that extend the ledger with `added` messages (and the assistant header when asked). */
  suffixFor(added: readonly ChatMessage[], addGenerationPrompt: boolean): PromptSuffix {
    const next = this.template.render([...this.messageList, ...added], { addGenerationPrompt });
    const text = appendOnlySuffix(this.renderedText, next);
    const tokens = this.tokenizer.encode(text, { specials: true });
    const bos = this.tokenizer.bos;
    if (this.isEmpty && bos && !next.startsWith(bos.text)) tokens.unshift(bos.id);
    return { text, tokens };
  }

  /** The ledger now holds `suffix` followed by the generated `reply`. */
  commitTurn(added: readonly ChatMessage[], suffix: PromptSuffix, reply?: string): void {
    this.messageList.push(...added);
    this.renderedText += suffix.text;
    if (reply !== undefined) {
      this.messageList.push({ role: "assistant", content: reply });
      this.renderedText += reply;
    }
  }

  /** Token count of a fresh conversation made of `messages` (for fit checks). */
  measureFresh(messages: readonly ChatMessage[], addGenerationPrompt: boolean): number {
    const text = this.template.render(messages, { addGenerationPrompt });
    const extra = this.tokenizer.bos && !text.startsWith(this.tokenizer.bos.text) ? 1 : 0;
    return this.tokenizer.encode(text, { specials: true }).length + extra;
  }

  /** Start over from `messages` (a seed after overflow, or a restored transcript). */
  seed(messages: readonly ChatMessage[]): PromptSuffix {
    this.clear();
    if (messages.length === 0) return { text: "", tokens: [] };
    const suffix = this.suffixFor(messages, false);
    this.commitTurn(messages, suffix);
    return suffix;
  }

  clear(): void {
    this.messageList = [];
    this.renderedText = "";
  }
}
