// vLLM and SGLang, written against their documented HTTP APIs. NOT EXERCISED HERE: the tests
// and the load run use llama-server (a CUDA server does not run on this machine); unit tests
// check these against recorded-shape fakes only.
//
// vLLM (>= 0.10.2): `/v1/completions` with the prompt as token ids, `return_token_ids` for
//   the generated ids, `stream_options.include_usage` for the final usage, whose
//   `prompt_tokens_details.cached_tokens` (server flag `--enable-prompt-tokens-details`) is
//   the automatic prefix cache's hit (`--enable-prefix-caching`, the default in the V1
//   engine). `/tokenize` for the probe, `/v1/models` for `max_model_len`.
// SGLang: native `/generate` with `input_ids`; stream events carry `output_ids` and
//   `meta_info.cached_tokens` (RadixAttention's reuse). `/v1/models` for the context.

import type { SamplingOptions } from "../../core/engine";
import { ServerUnreachableError } from "../../core/errors";
import type { CompletionEvents, CompletionRequest, CompletionResult, ServerDialect, ServerInfo } from "./dialect";
import type { ServerConnection } from "./http";
import { isObject, jsonEvents, streamEnded, type JsonEventStream } from "./json-events";

const DESCRIBE_TIMEOUT_MS = 15_000;
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isTokenList = (v: unknown): v is number[] => Array.isArray(v) && v.every(isCount);

/** The first model of `/v1/models`: its id, context length and owner (`vllm`, `sglang`). */
export async function firstModel(connection: ServerConnection, signal?: AbortSignal): Promise<{ id: string; maxModelLen?: number; ownedBy?: string }> {
  const models = await connection.json("v1/models", { signal, timeoutMs: DESCRIBE_TIMEOUT_MS });
  const first = isObject(models) && Array.isArray(models.data) && isObject(models.data[0]) ? models.data[0] : undefined;
  if (!first || typeof first.id !== "string") throw new ServerUnreachableError(`${connection.origin}/v1/models lists no model`);
  return {
    id: first.id,
    maxModelLen: isCount(first.max_model_len) ? first.max_model_len : undefined,
    ownedBy: typeof first.owned_by === "string" ? first.owned_by : undefined,
  };
}

function openAiSampling(sample: SamplingOptions): Record<string, unknown> {
  return {
    temperature: sample.temperature,
    top_p: sample.topP ?? 1,
    // vLLM and SGLang: -1 turns top-k off.
    top_k: sample.topK ?? -1,
    ...(sample.seed !== undefined ? { seed: sample.seed } : {}),
  };
}

export class VllmDialect implements ServerDialect {
  readonly kind = "vllm" as const;
  private model: string | undefined;

  constructor(private readonly connection: ServerConnection) {}

  async describe(signal?: AbortSignal): Promise<ServerInfo> {
    const model = await firstModel(this.connection, signal);
    this.model = model.id;
    return { kind: this.kind, model: model.id, contextPerSlot: model.maxModelLen };
  }

  async tokenize(text: string, specials: boolean, signal?: AbortSignal): Promise<number[] | undefined> {
    // vLLM's tokenizer always parses the special tokens written in the text.
    if (!specials) return undefined;
    const reply = await this.connection.json("tokenize", { body: { model: this.model, prompt: text, add_special_tokens: false }, signal, timeoutMs: DESCRIBE_TIMEOUT_MS });
    return isObject(reply) && isTokenList(reply.tokens) ? reply.tokens : undefined;
  }

  async complete(request: CompletionRequest, events: CompletionEvents, signal: AbortSignal): Promise<CompletionResult> {
    const response = await this.connection.request("v1/completions", {
      signal,
      body: {
        model: this.model,
        prompt: request.prompt,
        max_tokens: request.maxTokens,
        stream: true,
        stream_options: { include_usage: true },
        return_token_ids: true,
        // Older servers: the sampled ids through logprobs instead ("token_id:123").
        logprobs: 0,
        return_tokens_as_token_ids: true,
        skip_special_tokens: false,
        ...openAiSampling(request.sample),
      },
    });
    events.onStarted?.();
    return readCompletionStream(jsonEvents(response, this.connection, signal), this.connection, events, (event) => {
      const usage = isObject(event.usage) ? event.usage : undefined;
      const details = usage && isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : undefined;
      const choice = Array.isArray(event.choices) && isObject(event.choices[0]) ? event.choices[0] : undefined;
      return {
        cached: details && isCount(details.cached_tokens) ? details.cached_tokens : undefined,
        ids: !choice ? [] : isTokenList(choice.token_ids) ? choice.token_ids : idsFromLogprobs(choice.logprobs),
        finish: typeof choice?.finish_reason === "string" ? choice.finish_reason : undefined,
      };
    });
  }
}

/** What one streamed event of a dialect says: the server's cache count, new token ids, the finish reason. */
interface StreamEvent {
  readonly cached?: number;
  readonly ids: readonly number[];
  readonly finish?: string;
}

/** The stream of a completion, read to its end: ids passed on as they come, the last cache count and finish reason kept. */
async function readCompletionStream(
  stream: JsonEventStream,
  connection: ServerConnection,
  events: CompletionEvents,
  read: (event: Record<string, unknown>) => StreamEvent,
): Promise<CompletionResult> {
  let finish: string | undefined;
  let cached: number | undefined;
  for (;;) {
    const next = await stream.next();
    if (next.done) {
      if (next.value === "done" || finish) return { cached, stop: finish, endedAtEos: finish === "stop" };
      throw streamEnded(connection);
    }
    const event = read(next.value);
    if (event.cached !== undefined) cached = event.cached;
    if (event.ids.length > 0) events.onTokens([...event.ids]);
    if (event.finish !== undefined) finish = event.finish;
  }
}

function idsFromLogprobs(logprobs: unknown): number[] {
  if (!isObject(logprobs) || !Array.isArray(logprobs.tokens)) return [];
  return logprobs.tokens.flatMap((t) => {
    const match = typeof t === "string" ? /^token_id:(\d+)$/.exec(t) : null;
    return match ? [Number(match[1])] : [];
  });
}

export class SglangDialect implements ServerDialect {
  readonly kind = "sglang" as const;

  constructor(private readonly connection: ServerConnection) {}

  async describe(signal?: AbortSignal): Promise<ServerInfo> {
    const model = await firstModel(this.connection, signal);
    return { kind: this.kind, model: model.id, contextPerSlot: model.maxModelLen };
  }

  async tokenize(text: string, specials: boolean, signal?: AbortSignal): Promise<number[] | undefined> {
    if (!specials) return undefined;
    try {
      const reply = await this.connection.json("tokenize", { body: { prompt: text, add_special_tokens: false }, signal, timeoutMs: DESCRIBE_TIMEOUT_MS });
      return isObject(reply) && isTokenList(reply.tokens) ? reply.tokens : undefined;
    } catch (error) {
      // Older SGLang has no /tokenize: the caller checks what it can without it.
      if ((error as { status?: number }).status === 404) return undefined;
      throw error;
    }
  }

  async complete(request: CompletionRequest, events: CompletionEvents, signal: AbortSignal): Promise<CompletionResult> {
    const sampling = openAiSampling(request.sample);
    const response = await this.connection.request("generate", {
      signal,
      body: {
        input_ids: request.prompt,
        stream: true,
        sampling_params: {
          max_new_tokens: request.maxTokens,
          temperature: sampling.temperature,
          top_p: sampling.top_p,
          top_k: sampling.top_k,
          skip_special_tokens: false,
          no_stop_trim: true,
          ...(sampling.seed !== undefined ? { sampling_seed: sampling.seed } : {}),
        },
      },
    });
    events.onStarted?.();
    let received = 0;
    return readCompletionStream(jsonEvents(response, this.connection, signal), this.connection, events, (event) => {
      const meta = isObject(event.meta_info) ? event.meta_info : {};
      const ids = isTokenList(event.output_ids) ? event.output_ids : [];
      // output_ids are cumulative by default (incremental with --stream-output): completion_tokens tells which.
      const fresh = isCount(meta.completion_tokens) && meta.completion_tokens === ids.length && ids.length >= received ? ids.slice(received) : ids;
      received += fresh.length;
      const reason = isObject(meta.finish_reason) ? meta.finish_reason.type : meta.finish_reason;
      return { cached: isCount(meta.cached_tokens) ? meta.cached_tokens : undefined, ids: fresh, finish: typeof reason === "string" ? reason : undefined };
    });
  }
}
