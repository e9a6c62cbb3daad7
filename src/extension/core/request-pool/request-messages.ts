// A stateless request as callers such as VS Code's Chat send it: the whole conversation each
// time, tool calls and tool results included. Rendered with the model's own template and
// tokenized exactly as a panel's prompt is, so its tokens can be matched against a cached
// session's ledger.

import { ChatTemplate } from "../chat-template";
import { spellOutMarkers } from "../tool-calls/quoted-markers";
import type { Tokenizer } from "../engine";
import { renderStablePrefixFirst, type StablePrefixRendering } from "./stable-prefix-render";
import type { RequestMessage, ToolSpec } from "./request-shape";
import { commonTokenPrefix } from "./token-prefix";

export interface RenderedRequest {
  readonly text: string;
  readonly tokens: number[];
  /** How the request was laid out (stable-prefix-render.ts); "as-sent" for a bare ChatTemplate. */
  readonly layout?: StablePrefixRendering["layout"];
  readonly moved?: StablePrefixRendering["moved"];
  /**
   * Leading tokens the next new conversation shares (system, tools, per-load blocks), when the
   * stable-prefix layout found where that ends: the pool stores exactly this much (PoolRequest.stablePrefix).
   */
  readonly stablePrefix?: number;
}

/**
 * A model's template as requests from VS Code's Chat and other extensions are rendered on it:
 * plain options from the shell (statefulChat.chatProvider.stablePrefixFirst).
 */
export interface RequestTemplate {
  readonly chat: ChatTemplate;
  /** Known per-conversation blocks after the stable instructions and tools (stable-prefix.ts); false renders VS Code's order. */
  readonly stablePrefixFirst: boolean;
  /** Told why a request with known blocks was rendered in VS Code's order after all. */
  readonly onFallback?: (why: string) => void;
  /**
   * The model's tool-call markers: where they occur in a message's content (a quoted file, a
   * tool result) they are spelled out (tool-calls/quoted-markers.ts), so a quote never reaches
   * the model as a real marker. Defaults to none.
   */
  readonly quotedMarkers?: readonly string[];
}

/** The messages in the shape Hugging Face chat templates read. */
function templateMessagesOf(messages: readonly RequestMessage[]): Array<Record<string, unknown>> {
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

function templateToolsOf(tools: readonly ToolSpec[]): Array<Record<string, unknown>> {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/**
 * Render and tokenize a request, with the generation prompt, BOS added as a panel's prompt adds
 * it. A bare ChatTemplate renders the messages in the order sent.
 */
export function renderRequest(
  template: ChatTemplate | RequestTemplate,
  tokenizer: Tokenizer,
  messages: readonly RequestMessage[],
  tools: readonly ToolSpec[] = [],
): RenderedRequest {
  const options: RequestTemplate = template instanceof ChatTemplate ? { chat: template, stablePrefixFirst: false } : template;
  const markers = options.quotedMarkers ?? [];
  const render = (shaped: readonly RequestMessage[]) =>
    options.chat.renderWith(templateMessagesOf(markers.length === 0 ? shaped : shaped.map((m) => ({ ...m, content: spellOutMarkers(m.content, markers) }))), {
      addGenerationPrompt: true,
      tools: templateToolsOf(tools),
    });
  const { text, layout, moved, recurringEnd }: StablePrefixRendering = options.stablePrefixFirst
    ? renderStablePrefixFirst(render, messages, options.onFallback)
    : { text: render(messages), layout: "as-sent", moved: [] };
  const tokens = encodePrompt(tokenizer, text);
  // The text's head tokenized alone can end in a token the whole text merges with what
  // follows: only the tokens both encodings share are the stable prefix's.
  const stablePrefix = recurringEnd === undefined ? undefined : commonTokenPrefix(encodePrompt(tokenizer, text.slice(0, recurringEnd)), tokens);
  return { text, tokens, layout, moved, ...(stablePrefix === undefined ? {} : { stablePrefix }) };
}

/** `text` as prompt tokens, BOS added as a panel's prompt adds it. */
function encodePrompt(tokenizer: Tokenizer, text: string): number[] {
  const tokens = tokenizer.encode(text, { specials: true });
  const bos = tokenizer.bos;
  if (bos && !text.startsWith(bos.text)) tokens.unshift(bos.id);
  return tokens;
}
