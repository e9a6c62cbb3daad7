// A stateless request's messages as data (the whole conversation, tool calls and results
// included), apart from how they are rendered (request-messages.ts) and laid out
// (stable-prefix.ts, stable-prefix-render.ts), which all read them.

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
