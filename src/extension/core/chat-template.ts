// Renders the model's own chat template (Jinja) with a real Jinja implementation, inside the
// template sandbox (a worker the host waits on for at most a time limit): a template is code
// from a model file, and one that loops must not hang VS Code. A template that cannot be
// parsed or rendered, or runs past the sandbox's limits, is the one thing the core cannot
// follow: that is reported as `template_not_append_only` with what to do about it.

import { TemplateNotAppendOnlyError, TemplateStoppedError } from "./errors";
import { TemplateLimitError } from "./template-sandbox/sandbox-limits";
import { sharedTemplateSandbox, type TemplateSandbox } from "./template-sandbox/template-sandbox";

type ChatRole = "system" | "user" | "assistant";

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
}

export interface TemplateSpecials {
  readonly bosToken?: string;
  readonly eosToken?: string;
  /** The model's name, said in an error when its template is stopped. */
  readonly modelName?: string;
  /** Where the template runs. Defaults to the process's shared sandbox. */
  readonly sandbox?: TemplateSandbox;
}

export class ChatTemplate {
  private readonly sandbox: TemplateSandbox;

  constructor(
    readonly source: string,
    private readonly specials: TemplateSpecials = {},
  ) {
    this.sandbox = specials.sandbox ?? sharedTemplateSandbox();
    try {
      this.sandbox.parse(source);
    } catch (error) {
      throw this.failure("it does not parse", error);
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
      return this.sandbox.render(this.source, {
        messages: messages.map((m) => ({ ...m })),
        add_generation_prompt: options.addGenerationPrompt,
        bos_token: this.specials.bosToken ?? "",
        eos_token: this.specials.eosToken ?? "",
        ...(options.tools && options.tools.length > 0 ? { tools: options.tools.map((t) => ({ ...t })) } : {}),
      });
    } catch (error) {
      throw this.failure("rendering failed", error);
    }
  }

  /**
   * Renders one user message, as every conversation starts: a template that is stopped by the
   * sandbox here would be stopped on every turn, so the load refuses the model
   * (TemplateStoppedError, with its name). Other errors are left to the turn that meets them
   * (some templates refuse a role or a shape that a real conversation never sends).
   */
  probe(): void {
    try {
      this.render([{ role: "user", content: "Hello" }], { addGenerationPrompt: true });
    } catch (error) {
      if (error instanceof TemplateStoppedError) throw error;
    }
  }

  private failure(what: string, error: unknown): TemplateNotAppendOnlyError {
    const model = this.specials.modelName ? ` of ${this.specials.modelName}` : "";
    if (error instanceof TemplateLimitError) {
      return new TemplateStoppedError(`the template${model} was stopped: ${error.detail}`);
    }
    return new TemplateNotAppendOnlyError(`${what}${model ? ` (template${model})` : ""}: ${describe(error)}`);
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
