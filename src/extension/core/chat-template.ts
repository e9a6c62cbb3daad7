// Renders the model's own chat template (Jinja) with a real Jinja implementation. A template
// that cannot be parsed or rendered is the one thing the core cannot follow: that is
// reported as `template_not_append_only` with what to do about it.

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
    try {
      this.template = new Template(source);
    } catch (error) {
      throw new TemplateNotAppendOnlyError(`it does not parse: ${describe(error)}`);
    }
  }

  render(messages: readonly ChatMessage[], options: { addGenerationPrompt: boolean }): string {
    return this.renderWith(
      messages.map((m) => ({ role: m.role, content: m.content })),
      options,
    );
  }

  /**
   * Render messages in the shape Hugging Face chat templates read (`tool_calls`, role
   * `tool`, a `tools` list): what a request with tools needs. The template decides how they
   * look; a template that ignores them renders them as it renders anything else.
   */
  renderWith(
    messages: readonly Readonly<Record<string, unknown>>[],
    options: { addGenerationPrompt: boolean; tools?: readonly Readonly<Record<string, unknown>>[] },
  ): string {
    try {
      return this.template.render({
        messages: messages.map((m) => ({ ...m })),
        add_generation_prompt: options.addGenerationPrompt,
        bos_token: this.specials.bosToken ?? "",
        eos_token: this.specials.eosToken ?? "",
        ...(options.tools && options.tools.length > 0 ? { tools: options.tools.map((t) => ({ ...t })) } : {}),
      });
    } catch (error) {
      throw new TemplateNotAppendOnlyError(`rendering failed: ${describe(error)}`);
    }
  }
}

/** Length of the longest common prefix of two strings. */
export function commonPrefixLength(a: string, b: string): number {
  const end = Math.min(a.length, b.length);
  let index = 0;
  while (index < end && a.charCodeAt(index) === b.charCodeAt(index)) index++;
  return index;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
