// VS Code's language-model messages in the core's request shape. Text parts are joined; an
// assistant's tool-call parts become its tool calls; tool-result parts become tool messages
// (in the order they came, before any text the same user message carries). Parts the core
// cannot render (images, data) are left out and counted, so the caller can say so.

import * as vscode from "vscode";
import type { RequestMessage, ToolCall, ToolSpec } from "../../core/request-pool/request-shape";

export interface ConvertedRequest {
  readonly messages: RequestMessage[];
  /** Parts left out (images, data, unknown kinds). */
  readonly skippedParts: number;
}

/** VS Code 1.104 has User = 1 and Assistant = 2; later versions add System = 3. */
const SYSTEM_ROLE = 3;

export function requestMessagesOf(messages: readonly vscode.LanguageModelChatRequestMessage[]): ConvertedRequest {
  const out: RequestMessage[] = [];
  let skippedParts = 0;
  for (const message of messages) {
    const texts: string[] = [];
    const calls: ToolCall[] = [];
    const results: RequestMessage[] = [];
    for (const part of message.content) {
      if (part instanceof vscode.LanguageModelTextPart) texts.push(part.value);
      else if (part instanceof vscode.LanguageModelToolCallPart) calls.push({ id: part.callId, name: part.name, arguments: recordOf(part.input) });
      else if (part instanceof vscode.LanguageModelToolResultPart) results.push({ role: "tool", content: toolResultText(part.content), toolCallId: part.callId });
      else skippedParts++;
    }
    out.push(...results);
    const role = message.role === vscode.LanguageModelChatMessageRole.Assistant ? "assistant" : (message.role as number) === SYSTEM_ROLE ? "system" : "user";
    if (role === "assistant") {
      if (texts.length > 0 || calls.length > 0) out.push({ role, content: texts.join(""), ...(calls.length > 0 ? { toolCalls: calls } : {}) });
    } else if (texts.length > 0 || results.length === 0) {
      out.push({ role, content: texts.join("") });
    }
  }
  return { messages: out, skippedParts };
}

export function toolSpecsOf(tools: readonly vscode.LanguageModelChatTool[] | undefined): ToolSpec[] {
  return (tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: recordOf(tool.inputSchema ?? { type: "object", properties: {} }),
  }));
}

/** Text of one message for provideTokenCount. */
export function messageText(message: vscode.LanguageModelChatRequestMessage): string {
  return requestMessagesOf([message]).messages.map((m) => m.content + (m.toolCalls ? JSON.stringify(m.toolCalls) : "")).join("\n");
}

function toolResultText(content: readonly unknown[]): string {
  return content
    .map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : part instanceof vscode.LanguageModelPromptTsxPart ? JSON.stringify(part.value) : ""))
    .join("");
}

function recordOf(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
