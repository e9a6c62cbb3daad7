// One chat against llama-server's OpenAI-compatible endpoint, as a chat client sends it:
// the whole message history every turn, streamed, prompt cache on (the server default),
// greedy. Prefill, cache, reply-token and draft counts come from the server's `timings`;
// times are ours (its own decode speed is kept beside them).

import { TurnClock } from "../../extension/core/stats";
import type { TurnMeasure } from "./turn-measure";

interface ChatMessage {
  readonly role: "system" | "user" | "assistant";
  readonly content: string;
}

export interface ServerTimings {
  readonly cache_n?: number;
  readonly prompt_n?: number;
  readonly predicted_n?: number;
  readonly predicted_per_second?: number;
  /** Present when speculative decoding drafted anything. */
  readonly draft_n?: number;
  readonly draft_n_accepted?: number;
}

interface StreamChunk {
  readonly choices?: ReadonlyArray<{ readonly delta?: { readonly content?: string | null } }>;
  readonly timings?: ServerTimings;
}

export interface PeerChatOptions {
  readonly baseUrl: string;
  readonly systemPrompt: string;
  readonly maxTokens: number;
  readonly capacity: number;
  readonly chat?: number;
  /**
   * `prune`: like Continue, drop the oldest exchanges until prompt + reply fit the context
   * (counted with the server's own template and tokenizer, outside the timed request).
   * `none`: send everything and let the server decide (scenario d records what it does).
   */
  readonly fit?: "prune" | "none";
}

export class PeerChat {
  private readonly messages: ChatMessage[];
  private turns = 0;

  constructor(private readonly options: PeerChatOptions) {
    this.messages = [{ role: "system", content: options.systemPrompt }];
  }

  /** `context` goes before the question in the same message, as our turns place it. */
  async send(text: string, context?: string): Promise<TurnMeasure & { readonly reply: string }> {
    this.turns++;
    const userText = context ? `${context}\n\n${text}` : text;
    const pruned = this.options.fit === "prune" ? await this.pruneToFit(userText) : 0;
    const request = [...this.messages, { role: "user" as const, content: userText }];
    const clock = new TurnClock();
    const response = await fetch(`${this.options.baseUrl}/v1/chat/completions`, {
      signal: AbortSignal.timeout(300_000),
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        messages: request,
        stream: true,
        temperature: 0,
        max_tokens: this.options.maxTokens,
        cache_prompt: true,
      }),
    });
    const base = { turn: this.turns, chat: this.options.chat ?? 0, capacity: this.options.capacity };
    if (!response.ok || !response.body) {
      const detail = (await response.text().catch(() => "")).slice(0, 300);
      return { ...base, prefilled: 0, cached: 0, ttftMs: 0, decodeTokensPerSec: 0, replyTokens: 0, contextFill: 0, failed: true, note: `HTTP ${response.status}: ${detail}`, reply: "" };
    }
    let reply = "";
    let timings: ServerTimings = {};
    let streamError: string | undefined;
    for await (const data of serverSentEvents(response.body)) {
      if (data === "[DONE]") break;
      const chunk = JSON.parse(data) as StreamChunk & { error?: { message?: string } };
      if (chunk.error) streamError = chunk.error.message ?? JSON.stringify(chunk.error);
      const text = chunk.choices?.[0]?.delta?.content;
      if (text) {
        clock.tokenArrived();
        reply += text;
      }
      if (chunk.timings) timings = chunk.timings;
    }
    this.messages.push({ role: "user", content: userText }, { role: "assistant", content: reply });
    const prefilled = timings.prompt_n ?? 0;
    const cached = timings.cache_n ?? 0;
    const replyTokens = timings.predicted_n ?? 0;
    return {
      ...base,
      prefilled,
      cached,
      ttftMs: clock.ttftMs,
      decodeTokensPerSec: clock.decodeRateOf(replyTokens),
      replyTokens,
      chunks: clock.arrivals,
      decodeMs: clock.decodeMs,
      reportedDecodeTokensPerSec: timings.predicted_per_second !== undefined ? Math.round(timings.predicted_per_second * 10) / 10 : undefined,
      speculation: peerSpeculation(timings),
      contextFill: cached + prefilled + replyTokens,
      promptTokens: cached + prefilled,
      failed: streamError !== undefined && reply === "",
      note: streamError ?? (pruned > 0 ? `client dropped the ${pruned} oldest exchange(s) to fit the context` : undefined),
      reply,
    };
  }

  /** Drops the oldest user/assistant pairs until the prompt plus a full reply fits. */
  private async pruneToFit(userText: string): Promise<number> {
    let dropped = 0;
    while (this.messages.length > 1) {
      const tokens = await this.promptTokens([...this.messages, { role: "user", content: userText }]);
      if (tokens + this.options.maxTokens <= this.options.capacity) break;
      this.messages.splice(1, 2);
      dropped++;
    }
    return dropped;
  }

  private async promptTokens(messages: readonly ChatMessage[]): Promise<number> {
    const post = async <T>(path: string, body: unknown): Promise<T> => {
      const response = await fetch(`${this.options.baseUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
      return (await response.json()) as T;
    };
    const { prompt } = await post<{ prompt: string }>("/apply-template", { messages });
    const { tokens } = await post<{ tokens: unknown[] }>("/tokenize", { content: prompt, add_special: true, parse_special: true });
    return tokens.length;
  }
}

/** The server counts drafted and accepted tokens; each target step keeps its accepted drafts plus one token of its own. */
export function peerSpeculation(timings: ServerTimings): TurnMeasure["speculation"] {
  if (timings.draft_n === undefined || timings.predicted_n === undefined) return undefined;
  const accepted = timings.draft_n_accepted ?? 0;
  return { drafted: timings.draft_n, accepted, steps: Math.max(1, timings.predicted_n - accepted) };
}

async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const bytes of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end).trimEnd();
      buffer = buffer.slice(end + 1);
      if (line.startsWith("data: ")) yield line.slice(6);
      else if (line.startsWith("error: ")) yield JSON.stringify({ error: { message: line.slice(7) } });
    }
  }
}
