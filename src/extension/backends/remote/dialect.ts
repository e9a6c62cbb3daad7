// What the remote backend needs from a server, whatever its API: what it serves, its
// tokenization of a probe text, and one streamed completion of a token-id prompt. One
// implementation per kind of server (llama-server.ts, openai-compatible.ts).

import type { SamplingOptions } from "../../core/engine";
import type { ServerKind } from "./options";

export interface ServerInfo {
  readonly kind: ServerKind;
  /** What the server says it serves (a model path or name). */
  readonly model: string;
  /** Tokens one request (one llama-server slot) can hold, when the server says. */
  readonly contextPerSlot?: number;
  /** llama-server's slot count (`-np`). */
  readonly slots?: number;
  /** The server model's vocabulary size, when the server says. */
  readonly vocabSize?: number;
  /** e.g. llama-server's build. */
  readonly build?: string;
}

export interface CompletionRequest {
  readonly prompt: readonly number[];
  /** Tokens to generate at most (the server's n_predict / max_tokens). */
  readonly maxTokens: number;
  readonly sample: SamplingOptions;
  /** llama-server slot to use (undefined: the server picks one). */
  readonly slot?: number;
}

export interface CompletionEvents {
  /** The server started on the request (llama-server sends its response headers only once a slot has it). */
  onStarted?(): void;
  /** Generated token ids, in order, as they arrive. */
  onTokens(tokens: readonly number[]): void;
}

export interface CompletionResult {
  /** Prompt tokens the server reports it reused from its cache (llama-server `timings.cache_n`, vLLM/SGLang `cached_tokens`). */
  readonly cached?: number;
  /** The llama-server slot that served the request. */
  readonly slot?: number;
  /** Tokens the server's cache holds for the request once it ended, by its own count (llama-server `tokens_cached`). */
  readonly held?: number;
  /** Why the server stopped: `eos`, `limit`, `word`… as it says it. */
  readonly stop?: string;
  /** The server stopped at an end-of-generation token that it did not stream (vLLM, SGLang). */
  readonly endedAtEos?: boolean;
}

export interface ServerDialect {
  readonly kind: ServerKind;
  describe(signal?: AbortSignal): Promise<ServerInfo>;
  /** The server's tokens for `text` (special tokens parsed when `specials`), or undefined when it cannot tell. */
  tokenize(text: string, specials: boolean, signal?: AbortSignal): Promise<number[] | undefined>;
  /** One streamed completion. Resolves when the server ended the reply; rejects with a typed error when it did not. */
  complete(request: CompletionRequest, events: CompletionEvents, signal: AbortSignal): Promise<CompletionResult>;
}

/** Local retokenization, for servers that leave tokens out of their stream (llama-server.ts). */
export type Retokenize = (text: string) => number[];
