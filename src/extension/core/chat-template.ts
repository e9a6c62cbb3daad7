// Renders the model's own chat template (Jinja) with a real Jinja implementation, and
// computes the append-only suffix between two renders (invariant 2).

import { Template } from "@huggingface/jinja";
import { TemplateNotAppendOnlyError } from "./errors";

export type ChatRole = "system" | "user" | "assistant";

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
}

export interface TemplateSpecials {
  readonly bosToken?: string;
  readonly eosToken?: string;
}

export class ChatTemplate {
  private readonly template: Template;

  constructor(
    readonly source: string,
    private readonly specials: TemplateSpecials = {},
  ) {
    this.template = new Template(source);
  }

  render(messages: readonly ChatMessage[], options: { addGenerationPrompt: boolean }): string {
    return this.template.render({
      messages: messages.map((m) => ({ role: m.role, content: m.content })),
      add_generation_prompt: options.addGenerationPrompt,
      bos_token: this.specials.bosToken ?? "",
      eos_token: this.specials.eosToken ?? "",
    });
  }
}

/**
 * The text to append so that the ledger's text becomes `next`. Throws when `next` does not
 * extend `current`: the template rewrote earlier turns, which a KV cache cannot follow.
 */
export function appendOnlySuffix(current: string, next: string): string {
  if (next.startsWith(current)) return next.slice(current.length);
  let index = 0;
  while (index < current.length && current[index] === next[index]) index++;
  const around = JSON.stringify(current.slice(Math.max(0, index - 20), index + 20));
  throw new TemplateNotAppendOnlyError(`first difference at character ${index}, near ${around}`);
}
