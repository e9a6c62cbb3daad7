// A stateless request as callers such as VS Code's Chat send it: the whole conversation each
// time, tool calls and tool results included. Rendered with the model's own template and
// tokenized exactly as a panel's prompt is, so its tokens can be matched against a cached
// session's ledger.

import type { ChatTemplate } from "../chat-template";
import type { Tokenizer } from "../engine";

/** The one list of request roles. */
export const REQUEST_ROLES = ["system", "user", "assistant", "tool"] as const;
export type RequestRole = (typeof REQUEST_ROLES)[number];

export interface ToolCall {
  /** The caller's id for this call (tool results refer to it). */
  readonly id: string;
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  /** JSON schema of the arguments. */
  readonly parameters: Readonly<Record<string, unknown>>;
}

export interface RequestMessage {
  readonly role: RequestRole;
  readonly content: string;
  /** Assistant messages: the tools it called. */
  readonly toolCalls?: readonly ToolCall[];
  /** Tool messages: the call this is the result of. */
  readonly toolCallId?: string;
  /** Tool messages: the tool's name (some templates print it). */
  readonly toolName?: string;
}

export interface RenderedRequest {
  readonly text: string;
  readonly tokens: number[];
}

/** The messages in the shape Hugging Face chat templates read. */
export function templateMessagesOf(messages: readonly RequestMessage[]): Array<Record<string, unknown>> {
  return messages.map((m) => {
    const shaped: Record<string, unknown> = { role: m.role, content: m.content };
    if (m.toolCalls && m.toolCalls.length > 0) {
      shaped.tool_calls = m.toolCalls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    if (m.toolCallId !== undefined) shaped.tool_call_id = m.toolCallId;
    if (m.toolName !== undefined) shaped.name = m.toolName;
    return shaped;
  });
}

export function templateToolsOf(tools: readonly ToolSpec[]): Array<Record<string, unknown>> {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/** Render and tokenize a request, with the generation prompt, BOS added as a panel's prompt adds it. */
export function renderRequest(
  template: ChatTemplate,
  tokenizer: Tokenizer,
  messages: readonly RequestMessage[],
  tools: readonly ToolSpec[] = [],
): RenderedRequest {
  const text = template.renderWith(templateMessagesOf(messages), { addGenerationPrompt: true, tools: templateToolsOf(tools) });
  const tokens = tokenizer.encode(text, { specials: true });
  const bos = tokenizer.bos;
  if (bos && !text.startsWith(bos.text)) tokens.unshift(bos.id);
  return { text, tokens };
}
