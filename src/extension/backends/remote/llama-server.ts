// llama.cpp's llama-server (tools/server, the pinned source under .cache/llama-cpp-source/):
// `/completion` with the prompt as token ids, `cache_prompt` and the session's `id_slot`, so
// the slot's prompt cache holds exactly our ledger; tokens stream back as ids; the final
// event's `timings.cache_n` is the server's own count of reused prompt tokens.
//
// One quirk of its stream: a token that ends inside a UTF-8 character is not sent (its
// partial event is skipped; see process_token in server-context.cpp); the next event's
// `content` carries the completed text and `tokens_predicted` counts the skipped tokens. The
// skipped ids are rebuilt from that text with the local tokenizer (checked to agree with the
// server's at connect).

import type { SamplingOptions } from "../../core/engine";
import { CancelledError, ServerUnreachableError } from "../../core/errors";
import type { CompletionEvents, CompletionRequest, CompletionResult, Retokenize, ServerDialect, ServerInfo } from "./dialect";
import type { ServerConnection } from "./http";
import { isObject, jsonEvents, streamEnded } from "./json-events";

const DESCRIBE_TIMEOUT_MS = 15_000;

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isTokenList = (v: unknown): v is number[] => Array.isArray(v) && v.every(isCount);

/** llama-server's sampling fields for our options: the chain node-llama-cpp runs locally (top-k, top-p, temperature), nothing else. */
export function llamaServerSampling(sample: SamplingOptions): Record<string, unknown> {
  return {
    temperature: sample.temperature,
    top_k: sample.topK ?? 0,
    top_p: sample.topP ?? 1,
    min_p: 0,
    typical_p: 1,
    repeat_penalty: 1,
    presence_penalty: 0,
    frequency_penalty: 0,
    dry_multiplier: 0,
    xtc_probability: 0,
    // temperature 0 keeps only the most likely token (greedy); otherwise the same order as ours.
    samplers: sample.temperature <= 0 ? ["temperature"] : ["top_k", "top_p", "temperature"],
    ...(sample.seed !== undefined ? { seed: sample.seed } : {}),
  };
}

export class LlamaServerDialect implements ServerDialect {
  readonly kind = "llama-server" as const;

  constructor(
    private readonly connection: ServerConnection,
    private readonly retokenize: Retokenize,
  ) {}

  async describe(signal?: AbortSignal): Promise<ServerInfo> {
    const props = await this.connection.json("props", { signal, timeoutMs: DESCRIBE_TIMEOUT_MS });
    if (!isObject(props)) throw new ServerUnreachableError(`${this.connection.origin}/props is not llama-server's answer`);
    const settings = isObject(props.default_generation_settings) ? props.default_generation_settings : {};
    // /v1/models carries the vocabulary size (meta.n_vocab); older servers may not say.
    const models = await this.connection.json("v1/models", { signal, timeoutMs: DESCRIBE_TIMEOUT_MS }).catch(() => undefined);
    const first = isObject(models) && Array.isArray(models.data) && isObject(models.data[0]) ? models.data[0] : undefined;
    const meta = first && isObject(first.meta) ? first.meta : undefined;
    return {
      kind: this.kind,
      model: typeof props.model_path === "string" ? props.model_path : typeof first?.id === "string" ? first.id : "llama-server",
      contextPerSlot: isCount(settings.n_ctx) ? settings.n_ctx : undefined,
      slots: isCount(props.total_slots) ? props.total_slots : undefined,
      vocabSize: meta && isCount(meta.n_vocab) ? meta.n_vocab : undefined,
      build: typeof props.build_info === "string" ? props.build_info : undefined,
    };
  }

  async tokenize(text: string, specials: boolean, signal?: AbortSignal): Promise<number[] | undefined> {
    const reply = await this.connection.json("tokenize", {
      body: { content: text, add_special: false, parse_special: specials, with_pieces: false },
      signal,
      timeoutMs: DESCRIBE_TIMEOUT_MS,
    });
    if (!isObject(reply) || !isTokenList(reply.tokens)) throw new ServerUnreachableError(`${this.connection.origin}/tokenize sent no token list`);
    return reply.tokens;
  }

  async complete(request: CompletionRequest, events: CompletionEvents, signal: AbortSignal): Promise<CompletionResult> {
    const response = await this.connection.request("completion", {
      signal,
      body: {
        prompt: request.prompt,
        n_predict: request.maxTokens,
        stream: true,
        cache_prompt: true,
        id_slot: request.slot ?? -1,
        return_tokens: true,
        n_probs: 0,
        ...llamaServerSampling(request.sample),
      },
    });
    events.onStarted?.();
    let streamed = 0;
    for await (const event of jsonEvents(response, this.connection, signal, "completion")) {
      const tokens = isTokenList(event.tokens) ? event.tokens : [];
      const predicted = isCount(event.tokens_predicted) ? event.tokens_predicted : undefined;
      if (event.stop === true) {
        const timings = isObject(event.timings) ? event.timings : {};
        return {
          cached: isCount(timings.cache_n) ? timings.cache_n : undefined,
          slot: isCount(event.id_slot) ? event.id_slot : undefined,
          held: isCount(event.tokens_cached) ? event.tokens_cached : undefined,
          stop: typeof event.stop_type === "string" ? event.stop_type : undefined,
        };
      }
      if (tokens.length === 0) continue;
      const skipped = predicted === undefined ? 0 : predicted - streamed - tokens.length;
      const ids = skipped > 0 ? this.withSkipped(tokens, typeof event.content === "string" ? event.content : "") : tokens;
      streamed = predicted ?? streamed + tokens.length;
      events.onTokens(ids);
    }
    if (signal.aborted) throw new CancelledError();
    throw streamEnded(this.connection);
  }

  /**
   * The ids of an event that follows skipped tokens: `content` is the text of the skipped
   * tokens and this one, so the local tokenizer's tokens for it stand in for them: the same
   * ids where its tokenization agrees with what was sampled (the usual case, a character
   * split into its bytes), else the same text in other ids, and the server's next `cache_n`
   * shows where its cache differs.
   */
  private withSkipped(tokens: readonly number[], content: string): number[] {
    const rebuilt = content ? this.retokenize(content) : [];
    return rebuilt.length > 0 ? rebuilt : [...tokens];
  }
}
