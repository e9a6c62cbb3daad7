// The remote backend: the model runs on an inference server (llama-server, vLLM, SGLang),
// the tokenizer, chat template and ledger stay here. Connecting asks the server what it is
// and serves, checks its tokenizer against ours (a mismatch refuses to connect), and sizes
// each session's state to what one request may hold there. Every state is one
// conversation; on llama-server it is pinned to the slot whose prompt cache holds it.

import { throwIfAborted } from "../../core/abort";
import type { Engine, EngineInfo, KvState, Tokenizer } from "../../core/engine";
import { requestedContextSize, type RemoteServerOptions } from "../../core/engine-options";
import type { ServerStatusListener } from "../../core/server-status";
import { BackendUnavailableError, DisposedError, ServerRejectedError, StatefulChatError } from "../../core/errors";
import type { ServerDialect, ServerInfo } from "./dialect";
import { ServerBusyError, ServerConnection, type ApiKeySource, type FetchLike } from "./http";
import { LlamaServerDialect } from "./llama-server";
import { loadLocalTokenizer, type LocalTokenizer } from "./local-tokenizer";
import { firstModel, SglangDialect, VllmDialect } from "./openai-compatible";
import { serverBaseUrl, type ServerKind } from "./options";
import { RemoteKvState } from "./remote-state";
import { DEFAULT_BUSY_RETRY, retryDelayMs, type BusyRetryPolicy } from "./status";
import { REAL_REMOTE_CLOCK, type CompletionTimeouts, type RemoteClock } from "./completion-waits";
import { checkTokenizer } from "./tokenizer-check";

export interface RemoteEngineOptions {
  readonly server: RemoteServerOptions;
  /** The local GGUF (or tokenizer folder) of the model the server runs: tokenizer and chat template. */
  readonly modelPath: string;
  /** Tokens per conversation; capped at what one request may hold on the server. */
  readonly contextSize?: number;
  /** Told what a turn waits for (busy server, queued on it); per-chat listeners: RemoteEngine.withServerStatus(). */
  readonly onStatus?: ServerStatusListener;
  /** Where to read the API key on every request (instead of `server.apiKey`): a key set later applies at once. */
  readonly apiKey?: () => Promise<string | undefined>;
  /** Tests: a fetch that records or redirects. */
  readonly fetch?: FetchLike;
  /** Tests: a shorter busy-retry policy. */
  readonly retry?: BusyRetryPolicy;
  /** Tests: how long a completion may stay queued or silent (see completion-waits.ts). */
  readonly timeouts?: CompletionTimeouts;
  /** Tests: a clock they advance by hand (retry sleeps, timeouts). */
  readonly clock?: RemoteClock;
  /** Ends connecting (a busy server's retry waits included) with CancelledError. */
  readonly signal?: AbortSignal;
}

/** Tokens kept free below a slot's size: the server needs room for the token it samples after the last one we take. */
const SLOT_MARGIN = 2;

export class RemoteEngine implements Engine {
  readonly replyLoop = true;
  private disposed = false;
  private readonly states = new Set<RemoteKvState>();

  private constructor(
    readonly info: EngineInfo,
    private readonly local: LocalTokenizer,
    private readonly dialect: ServerDialect,
    readonly server: ServerInfo,
    private readonly retry: BusyRetryPolicy,
    private readonly endToken: number | undefined,
    private readonly onStatus: ServerStatusListener | undefined,
    private readonly waits: { readonly timeouts?: CompletionTimeouts; readonly clock?: RemoteClock },
  ) {}

  get tokenizer(): Tokenizer {
    return this.local.tokenizer;
  }

  get chatTemplate(): string {
    return this.local.chatTemplate;
  }

  static async connect(options: RemoteEngineOptions): Promise<RemoteEngine> {
    if (!options.server.url) throw new BackendUnavailableError("The remote backend needs the server's URL (statefulChat.server.url, --server URL).");
    const base = serverBaseUrl(options.server.url);
    const key: ApiKeySource = options.apiKey ?? options.server.apiKey;
    const connection = new ServerConnection(base, key, options.fetch);
    const retry = { ...(options.retry ?? DEFAULT_BUSY_RETRY), ...(options.server.busyWaitMs !== undefined ? { maxWaitMs: options.server.busyWaitMs } : {}) };
    throwIfAborted(options.signal);
    const local = await loadLocalTokenizer(options.modelPath);
    try {
      const retokenize = (text: string) => local.tokenizer.encode(text, { specials: false });
      const waits = { retry, onStatus: options.onStatus, clock: options.clock ?? REAL_REMOTE_CLOCK, signal: options.signal };
      const kind = options.server.kind && options.server.kind !== "auto" ? options.server.kind : await whileBusy(() => detectKind(connection, options.signal), waits);
      const dialect: ServerDialect =
        kind === "llama-server" ? new LlamaServerDialect(connection, retokenize) : kind === "vllm" ? new VllmDialect(connection) : new SglangDialect(connection);
      const server = await whileBusy(() => dialect.describe(options.signal), waits);
      await checkTokenizer(dialect, server, local.tokenizer, options.modelPath, options.signal);
      const requested = requestedContextSize(options.contextSize);
      const capacity = server.contextPerSlot !== undefined ? Math.min(requested, server.contextPerSlot - SLOT_MARGIN) : requested;
      if (capacity < 16) throw new ServerRejectedError(`The inference server offers ${server.contextPerSlot} tokens per request; too few for a conversation.`);
      const slots = server.slots !== undefined ? `, ${server.slots} slots of ${server.contextPerSlot} tokens` : "";
      const info: EngineInfo = {
        backend: "remote",
        modelPath: options.modelPath,
        modelName: local.modelName,
        capacity,
        details: `${kind} at ${base.origin}${base.pathname === "/" ? "" : base.pathname} (${server.model}${server.build ? `, build ${server.build}` : ""}${slots}), context ${capacity}, tokenizer checked`,
      };
      return new RemoteEngine(info, local, dialect, server, retry, endTokenOf(local.tokenizer), options.onStatus, { timeouts: options.timeouts, clock: options.clock });
    } catch (error) {
      await local.dispose();
      throw error;
    }
  }

  createState(): Promise<KvState> {
    return this.createStateReporting(this.onStatus);
  }

  /** Engine.withServerStatus: the same engine, whose states report their waits to `listener` (one chat panel). */
  withServerStatus(listener: ServerStatusListener): Engine {
    // info, tokenizer and template are fixed once connected: the view holds the same objects.
    return {
      info: this.info,
      tokenizer: this.tokenizer,
      chatTemplate: this.chatTemplate,
      replyLoop: this.replyLoop,
      createState: () => this.createStateReporting(listener),
      // The shared engine is disposed by its owner, not by one chat.
      dispose: async () => undefined,
    };
  }

  /** A state whose waits (busy server, queued on it) are told to `listener` (one chat panel, one CLI session). */
  private async createStateReporting(listener: ServerStatusListener | undefined): Promise<KvState> {
    if (this.disposed) throw new DisposedError("Engine");
    const state: RemoteKvState = new RemoteKvState(
      { dialect: this.dialect, tokenizer: this.local.tokenizer, endToken: this.endToken, retry: this.retry, ...this.waits },
      this.info.capacity,
      listener,
      () => this.states.delete(state),
    );
    this.states.add(state);
    return state;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const state of [...this.states]) await state.dispose();
    await this.local.dispose();
  }
}

/** llama-server answers /props with its slots; vLLM and SGLang name themselves as the owner in /v1/models. */
async function detectKind(connection: ServerConnection, signal?: AbortSignal): Promise<ServerKind> {
  const props = await connection.json("props", { timeoutMs: 15_000, signal }).catch((error: unknown) => {
    // Not reachable, or busy (the caller retries), or cancelled: no point asking further. Any
    // other answer (404 from vLLM or SGLang) only says it is not llama-server.
    if (error instanceof StatefulChatError && (error.code === "server_unreachable" || error.code === "cancelled")) throw error;
    return undefined;
  });
  if (typeof props === "object" && props !== null && ("total_slots" in props || "default_generation_settings" in props)) return "llama-server";
  const model = await firstModel(connection, signal).catch(() => undefined);
  const owner = model?.ownedBy?.toLowerCase() ?? "";
  if (owner.includes("vllm")) return "vllm";
  if (owner.includes("sglang")) return "sglang";
  throw new ServerRejectedError(
    `Cannot tell which server runs at ${connection.origin} (not llama-server's /props, no vLLM or SGLang in /v1/models). Set statefulChat.server.kind (--server-kind).`,
  );
}

/** Connecting waits, like a turn does, while the server answers 429/503 (llama-server: loading the model). */
async function whileBusy<T>(
  operation: () => Promise<T>,
  waits: { readonly retry: BusyRetryPolicy; readonly onStatus?: ServerStatusListener; readonly clock: RemoteClock; readonly signal?: AbortSignal },
): Promise<T> {
  const { retry, onStatus, clock, signal } = waits;
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(signal);
    try {
      return await operation();
    } catch (error) {
      if (!(error instanceof ServerBusyError) || signal?.aborted) throw error;
      const delay = retryDelayMs(retry, attempt, error.retryAfterMs);
      if (waited + delay > retry.maxWaitMs) throw error;
      waited += delay;
      onStatus?.({ state: "retrying", reason: error.detail, attempt, retryInMs: delay });
      await clock.sleep(delay, signal);
    }
  }
}

/** The end-of-generation token the tokenizer writes for its EOS text, when it is one token. */
function endTokenOf(tokenizer: Tokenizer): number | undefined {
  if (!tokenizer.eosText) return undefined;
  const ids = tokenizer.encode(tokenizer.eosText, { specials: true });
  return ids.length === 1 && tokenizer.isEndOfGeneration(ids[0]) ? ids[0] : undefined;
}
