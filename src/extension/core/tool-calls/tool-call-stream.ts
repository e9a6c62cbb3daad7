// Splits a streamed reply into text and tool calls. Text that cannot be the start of a tool
// call is released at once (so the caller streams it); a possible call is held until it is
// complete. A call that does not parse (bad JSON, no name, cut off) comes back as the text
// the model wrote, never as an exception.
//
// With `recognition` "tokens" a marker counts only when it arrives through pushMarker() (the
// model emitted the marker's token: tool-call-tokens.ts); marker characters inside pushed text
// are text. With "text" (a vocabulary without marker tokens: tool-call-markers.ts) the markers
// are found in the text. Inside a call the model opened with a real marker, the body is parsed
// as written either way.

import type { ToolCall } from "../request-pool/request-shape";
import { HERMES_CLOSE, HERMES_OPEN, MISTRAL_OPEN, PYTHON_TAG, type ToolCallFormat } from "./tool-call-formats";
import type { MarkerRecognition } from "./tool-call-markers";

export type ReplyPart = { readonly kind: "text"; readonly text: string } | { readonly kind: "toolCall"; readonly call: ToolCall };

export class ToolCallStream {
  /** Text not yet released: a possible marker, or a call being written. */
  private held = "";
  /** "tokens": where in `held` a marker token's text starts (the only markers that count). */
  private markerAt: number[] = [];
  /** Inside a call (hermes: after its open tag; mistral/llama3: the rest of the reply). */
  private inCall = false;
  /** llama3-json: whether the reply has started (a call must be the whole reply). */
  private started = false;
  private count = 0;

  constructor(
    private readonly format: ToolCallFormat,
    private readonly recognition: MarkerRecognition,
    private readonly newId: (index: number) => string = (index) => `call_${index}`,
  ) {}

  /** Text the model wrote (ordinary tokens). */
  push(text: string): ReplyPart[] {
    this.held += text;
    return this.scan(false);
  }

  /** A marker the model emitted as its token (one of TOOL_CALL_MARKERS[format]). */
  pushMarker(marker: string): ReplyPart[] {
    if (this.recognition === "tokens") this.markerAt.push(this.held.length);
    return this.push(marker);
  }

  end(): ReplyPart[] {
    return this.scan(true);
  }

  private scan(final: boolean): ReplyPart[] {
    return this.format === "hermes" ? this.scanHermes(final) : this.scanWhole(final);
  }

  /** Where the first marker that counts starts in `held`, or -1. */
  private find(marker: string): number {
    if (this.recognition === "text") return this.held.indexOf(marker);
    return this.markerAt.find((at) => this.held.startsWith(marker, at)) ?? -1;
  }

  /** How many characters at the end of `held` to keep back: they could begin `marker`'s text. */
  private partial(marker: string): number {
    return this.recognition === "text" ? partialMarkerLength(this.held, marker) : 0;
  }

  /** Drops the first `count` characters of `held` (released or consumed). */
  private drop(count: number): void {
    this.held = this.held.slice(count);
    this.markerAt = this.markerAt.filter((at) => at >= count).map((at) => at - count);
  }

  private scanHermes(final: boolean): ReplyPart[] {
    const parts: ReplyPart[] = [];
    for (;;) {
      if (this.inCall) {
        const close = this.find(HERMES_CLOSE);
        if (close < 0) {
          if (final) {
            // Cut off inside a call: a complete JSON object is still a call, else text.
            const call = this.parseCall(this.held);
            parts.push(call ? { kind: "toolCall", call } : { kind: "text", text: HERMES_OPEN + this.held });
            this.drop(this.held.length);
            this.inCall = false;
          }
          return merge(parts);
        }
        const body = this.held.slice(0, close);
        const call = this.parseCall(body);
        parts.push(call ? { kind: "toolCall", call } : { kind: "text", text: HERMES_OPEN + body + HERMES_CLOSE });
        this.drop(close + HERMES_CLOSE.length);
        this.inCall = false;
        continue;
      }
      const open = this.find(HERMES_OPEN);
      if (open >= 0) {
        if (open > 0) parts.push({ kind: "text", text: this.held.slice(0, open) });
        this.drop(open + HERMES_OPEN.length);
        this.inCall = true;
        continue;
      }
      const keep = final ? 0 : this.partial(HERMES_OPEN);
      const release = this.held.slice(0, this.held.length - keep);
      if (release) parts.push({ kind: "text", text: release });
      this.drop(release.length);
      return merge(parts);
    }
  }

  /** mistral and llama3-json: a call runs to the end of the reply. */
  private scanWhole(final: boolean): ReplyPart[] {
    const marker = this.format === "mistral" ? MISTRAL_OPEN : PYTHON_TAG;
    const parts: ReplyPart[] = [];
    if (!this.inCall) {
      const at = this.find(marker);
      if (at >= 0) {
        if (at > 0) parts.push({ kind: "text", text: this.held.slice(0, at) });
        this.drop(at);
        this.inCall = true;
      } else if (this.format === "llama3-json" && !this.started && this.held.trimStart().startsWith("{")) {
        // Llama 3's JSON calls have no marker (its template asks for a bare JSON reply), so this
        // form is recognised by text in both modes: only a reply that is wholly a call counts.
        this.inCall = true;
      } else {
        if (this.held.trim() !== "") this.started = true;
        const keep = final ? 0 : Math.max(this.partial(marker), this.format === "llama3-json" && !this.started ? this.held.length : 0);
        const release = this.held.slice(0, this.held.length - keep);
        if (release) parts.push({ kind: "text", text: release });
        this.drop(release.length);
        return merge(parts);
      }
    }
    if (!final) return merge(parts);
    const calls = this.format === "mistral" ? this.parseMistral(this.held.slice(MISTRAL_OPEN.length)) : this.parseLlama(this.held);
    if (calls) parts.push(...calls.map((call) => ({ kind: "toolCall" as const, call })));
    else if (this.held) parts.push({ kind: "text", text: this.held });
    this.drop(this.held.length);
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
