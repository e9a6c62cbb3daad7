// How a model writes a tool call, read from its chat template: the template shows the model
// the syntax (in its system block and in how it renders earlier calls), so the reply uses the
// same. One list of formats; every parser and check comes from it.

import type { ChatTemplate } from "../chat-template";

export const TOOL_CALL_FORMATS = ["hermes", "mistral", "llama3-json"] as const;
export type ToolCallFormat = (typeof TOOL_CALL_FORMATS)[number];

export const HERMES_OPEN = "<tool_call>";
export const HERMES_CLOSE = "</tool_call>";
export const MISTRAL_OPEN = "[TOOL_CALLS]";
export const PYTHON_TAG = "<|python_tag|>";

/**
 * - `hermes`: `<tool_call>{"name": …, "arguments": {…}}</tool_call>` (Qwen2.5, Hermes, SmolLM3 …)
 * - `mistral`: `[TOOL_CALLS]` then a JSON list of calls, or `name[ARGS]{…}` (Mistral's newer templates)
 * - `llama3-json`: the whole reply is `{"name": …, "parameters": {…}}`, optionally after `<|python_tag|>` (Llama 3.x)
 */
export function toolCallFormatOf(templateSource: string): ToolCallFormat {
  if (templateSource.includes(HERMES_OPEN)) return "hermes";
  if (templateSource.includes(MISTRAL_OPEN)) return "mistral";
  if (templateSource.includes(PYTHON_TAG) || (templateSource.includes("ipython") && templateSource.includes("parameters"))) return "llama3-json";
  return "hermes";
}

/**
 * The markers that make a call in each format: the tokens a model emits to start (and, in
 * hermes, end) a call. Where the vocabulary has a token for each, only those tokens count as
 * markers (tool-call-markers.ts); the same characters written as ordinary text stay text.
 */
export const TOOL_CALL_MARKERS: Readonly<Record<ToolCallFormat, readonly string[]>> = {
  hermes: [HERMES_OPEN, HERMES_CLOSE],
  mistral: [MISTRAL_OPEN],
  "llama3-json": [PYTHON_TAG],
};

const PROBE_TOOL = "stateful_chat_probe_tool";

/** Whether the template renders the tools it is given (where a model is told about them). */
export function templateRendersTools(template: ChatTemplate): boolean {
  try {
    const text = template.renderWith([{ role: "user", content: "hi" }], {
      addGenerationPrompt: true,
      tools: [{ type: "function", function: { name: PROBE_TOOL, description: "probe", parameters: { type: "object", properties: {} } } }],
    });
    return text.includes(PROBE_TOOL);
  } catch {
    return false;
  }
}
