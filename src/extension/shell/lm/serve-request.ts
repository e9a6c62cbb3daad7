// One request through a model's pool: render it, serve it from the best cached session, and
// stream the reply back as text and tool calls. Shared by the provider and @stateful.

import type { SamplingOptions } from "../../core/engine";
import { renderRequest } from "../../core/request-pool/request-messages";
import type { RequestMessage, ToolCall, ToolSpec } from "../../core/request-pool/request-shape";
import type { PoolReply, PoolRequest } from "../../core/request-pool/request-pool";
import { StreamDecoder } from "../../core/stream-decoder";
import type { ReplyPart } from "../../core/tool-calls/tool-call-stream";
import { ToolCallTokenStream } from "../../core/tool-calls/tool-call-tokens";
import type { ModelPool, ServedRequest } from "./lm-pools";
import { recordRequest } from "./request-recorder";

export interface ReplySink {
  text(text: string): void;
  toolCall(call: ToolCall): void;
}

export interface ServedReply {
  readonly reply: PoolReply;
  readonly requestTokens: number;
  readonly text: string;
  readonly toolCalls: number;
  /** From the request to its first generated token (queueing, restore, prefill). */
  readonly ttftMs: number;
  /** Generated tokens after the first, per second. */
  readonly decodeTokensPerSec: number;
}

export async function serveRequest(
  target: ModelPool,
  messages: readonly RequestMessage[],
  tools: readonly ToolSpec[],
  /** `onPrefillProgress` hears how far the prefill of what no session holds is (prefill-progress.ts shows it). */
  options: { readonly maxTokens: number; readonly sampling: SamplingOptions; readonly onPrefillProgress?: PoolRequest["onPrefillProgress"] },
  sink: ReplySink,
  signal: AbortSignal,
): Promise<ServedReply> {
  const rendered = renderRequest(target.template, target.tokenizer, messages, tools);
  const { tokens } = rendered;
  // Off unless STATEFUL_CHAT_RECORD_REQUESTS is set; written before serving, so a refused request is on record too.
  const recording = recordRequest({ model: target.modelName, tokenizer: target.tokenizer, messages, tools, rendered });
  // Without tools nothing is a call: the text streams as it comes. With tools, a call is made
  // only where the model emitted the format's marker tokens (tool-call-tokens.ts).
  const decoder = new StreamDecoder(target.tokenizer);
  const calls = tools.length > 0 ? new ToolCallTokenStream(target.tokenizer, target.toolFormat, () => `call_${Date.now().toString(36)}_${++callCount}`) : undefined;
  let text = "";
  let toolCalls = 0;
  const emit = (parts: ReplyPart[]) => {
    for (const part of parts) {
      if (part.kind === "text") {
        text += part.text;
        sink.text(part.text);
      } else {
        toolCalls++;
        sink.toolCall(part.call);
      }
    }
  };
  const textOnly = (piece: string): ReplyPart[] => (piece ? [{ kind: "text", text: piece }] : []);
  const started = performance.now();
  let firstAt: number | undefined;
  const reply = await recording.outcome(
    target.pool.serve(
      { tokens, stablePrefix: rendered.stablePrefix, ...options },
      (token) => {
        firstAt ??= performance.now();
        emit(calls ? calls.push(token) : textOnly(decoder.push(token)));
      },
      signal,
    ),
    () => (firstAt === undefined ? undefined : Math.round(firstAt - started)),
  );
  const ended = performance.now();
  emit(calls ? calls.end() : textOnly(decoder.flush()));
  const decodeSeconds = firstAt === undefined ? 0 : (ended - firstAt) / 1000;
  return {
    reply,
    requestTokens: tokens.length,
    text,
    toolCalls,
    ttftMs: Math.round((firstAt ?? ended) - started),
    decodeTokensPerSec: decodeSeconds > 0 && reply.generated > 1 ? Math.round(((reply.generated - 1) / decodeSeconds) * 10) / 10 : 0,
  };
}

let callCount = 0;

export function servedRecord(served: ServedReply, model: string, via: ServedRequest["via"]): ServedRequest {
  return {
    ...served.reply,
    model,
    via,
    requestTokens: served.requestTokens,
    toolCalls: served.toolCalls,
    ttftMs: served.ttftMs,
    decodeTokensPerSec: served.decodeTokensPerSec,
    at: new Date().toISOString(),
  };
}
