// Splits a streamed reply into text and tool calls. Text that cannot be the start of a tool
// call is released at once (so the caller streams it); a possible call is held until it is
// complete. A call that does not parse (bad JSON, no name, cut off) comes back as the text
// the model wrote, never as an exception.

import type { ToolCall } from "../request-pool/request-messages";
import type { ToolCallFormat } from "./tool-call-formats";

export type ReplyPart = { readonly kind: "text"; readonly text: string } | { readonly kind: "toolCall"; readonly call: ToolCall };

const HERMES_OPEN = "<tool_call>";
const HERMES_CLOSE = "</tool_call>";
const MISTRAL_OPEN = "[TOOL_CALLS]";
const PYTHON_TAG = "<|python_tag|>";

export class ToolCallStream {
  /** Text not yet released: a possible marker, or a call being written. */
  private held = "";
  /** Inside a call (hermes: after its open tag; mistral/llama3: the rest of the reply). */
  private inCall = false;
  /** llama3-json: whether the reply has started (a call must be the whole reply). */
  private started = false;
  private count = 0;

  constructor(
    private readonly format: ToolCallFormat,
    private readonly newId: (index: number) => string = (index) => `call_${index}`,
  ) {}

  push(text: string): ReplyPart[] {
    this.held += text;
    return this.format === "hermes" ? this.scanHermes(false) : this.scanWhole(false);
  }

  end(): ReplyPart[] {
    return this.format === "hermes" ? this.scanHermes(true) : this.scanWhole(true);
  }

  private scanHermes(final: boolean): ReplyPart[] {
    const parts: ReplyPart[] = [];
    for (;;) {
      if (this.inCall) {
        const close = this.held.indexOf(HERMES_CLOSE);
        if (close < 0) {
          if (final) {
            // Cut off inside a call: a complete JSON object is still a call, else text.
            const call = this.parseCall(this.held);
            parts.push(call ? { kind: "toolCall", call } : { kind: "text", text: HERMES_OPEN + this.held });
            this.held = "";
            this.inCall = false;
          }
          return merge(parts);
        }
        const body = this.held.slice(0, close);
        const call = this.parseCall(body);
        parts.push(call ? { kind: "toolCall", call } : { kind: "text", text: HERMES_OPEN + body + HERMES_CLOSE });
        this.held = this.held.slice(close + HERMES_CLOSE.length);
        this.inCall = false;
        continue;
      }
      const open = this.held.indexOf(HERMES_OPEN);
      if (open >= 0) {
        if (open > 0) parts.push({ kind: "text", text: this.held.slice(0, open) });
        this.held = this.held.slice(open + HERMES_OPEN.length);
        this.inCall = true;
        continue;
      }
      const keep = final ? 0 : partialMarkerLength(this.held, HERMES_OPEN);
      const release = this.held.slice(0, this.held.length - keep);
      if (release) parts.push({ kind: "text", text: release });
      this.held = this.held.slice(release.length);
      return merge(parts);
    }
  }

  /** mistral and llama3-json: a call runs to the end of the reply. */
  private scanWhole(final: boolean): ReplyPart[] {
    const marker = this.format === "mistral" ? MISTRAL_OPEN : PYTHON_TAG;
    const parts: ReplyPart[] = [];
    if (!this.inCall) {
      const at = this.held.indexOf(marker);
      if (at >= 0) {
        if (at > 0) parts.push({ kind: "text", text: this.held.slice(0, at) });
        this.held = this.held.slice(at);
        this.inCall = true;
      } else if (this.format === "llama3-json" && !this.started && this.held.trimStart().startsWith("{")) {
        this.inCall = true;
      } else {
        if (this.held.trim() !== "") this.started = true;
        const keep = final ? 0 : Math.max(partialMarkerLength(this.held, marker), this.format === "llama3-json" && !this.started ? this.held.length : 0);
        const release = this.held.slice(0, this.held.length - keep);
        if (release) parts.push({ kind: "text", text: release });
        this.held = this.held.slice(release.length);
        return merge(parts);
      }
    }
    if (!final) return merge(parts);
    const calls = this.format === "mistral" ? this.parseMistral(this.held.slice(MISTRAL_OPEN.length)) : this.parseLlama(this.held);
    if (calls) parts.push(...calls.map((call) => ({ kind: "toolCall" as const, call })));
    else if (this.held) parts.push({ kind: "text", text: this.held });
    this.held = "";
    this.inCall = false;
    return merge(parts);
  }

  private parseMistral(body: string): ToolCall[] | undefined {
    const trimmed = body.trim();
    const list = parseJson(trimmed);
    if (Array.isArray(list)) {
      const calls = list.map((item) => this.callOf(item));
      return calls.length > 0 && calls.every((c) => c !== undefined) ? (calls as ToolCall[]) : undefined;
    }
    // Newer templates: name[ARGS]{json}, possibly several, each after [TOOL_CALLS].
    const calls: ToolCall[] = [];
    for (const piece of trimmed.split(MISTRAL_OPEN)) {
      const match = /^\s*([A-Za-z0-9_.-]+)\s*\[ARGS\]\s*([\s\S]*)$/.exec(piece);
      const args = match ? parseJson(match[2].trim()) : undefined;
      if (!match || !isRecord(args)) return undefined;
      calls.push(this.make(match[1], args));
    }
    return calls.length > 0 ? calls : undefined;
  }

  private parseLlama(text: string): ToolCall[] | undefined {
    const body = text.startsWith(PYTHON_TAG) ? text.slice(PYTHON_TAG.length) : text;
    const calls: ToolCall[] = [];
    for (const piece of body.split(/;\s*(?=\{)/)) {
      const call = this.callOf(parseJson(piece.trim()));
      if (!call) return undefined;
      calls.push(call);
    }
    return calls.length > 0 ? calls : undefined;
  }

  private parseCall(body: string): ToolCall | undefined {
    return this.callOf(parseJson(body.trim()));
  }

  /** `{"name", "arguments"|"parameters"}` (arguments may be a JSON string), or `{"function": {…}}`. */
  private callOf(value: unknown): ToolCall | undefined {
    if (!isRecord(value)) return undefined;
    const inner = isRecord(value.function) ? value.function : value;
    const name = inner.name;
    let args: unknown = inner.arguments ?? inner.parameters ?? {};
    if (typeof args === "string") args = parseJson(args);
    if (typeof name !== "string" || name === "" || !isRecord(args)) return undefined;
    return this.make(name, args);
  }

  private make(name: string, args: Record<string, unknown>): ToolCall {
    return { id: this.newId(this.count++), name, arguments: args };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** How many characters at the end of `text` could begin `marker`. */
function partialMarkerLength(text: string, marker: string): number {
  for (let length = Math.min(marker.length - 1, text.length); length > 0; length--) {
    if (marker.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}

/** Adjacent text parts joined. */
function merge(parts: ReplyPart[]): ReplyPart[] {
  const out: ReplyPart[] = [];
  for (const part of parts) {
    const last = out[out.length - 1];
    if (part.kind === "text" && last?.kind === "text") out[out.length - 1] = { kind: "text", text: last.text + part.text };
    else if (part.kind !== "text" || part.text !== "") out.push(part);
  }
  return out;
}
