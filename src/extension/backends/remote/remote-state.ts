// One conversation's cache on an inference server, as a KvState. The "cache" is the server's
// prompt cache for this session (a llama-server slot, vLLM/SGLang prefix caching); what it
// holds is not ours to see, so this state keeps the token list it has sent (and will send)
// and lets the server measure the rest: every reply sends the whole list as token ids and
// the server reports how many of them it reused (`serverCached`), a miss included.
//
// evaluate() without sampling only records tokens (nothing to compute until a reply is
// asked for); generateReply() is one streamed request per reply. The reply asks for one
// token more than it takes, so the server decodes the last taken token too and its cache
// ends exactly where the ledger does (a server stops without decoding the token it sampled
// last). A fault (network, server restart, dropped stream) ends the reply with a typed
// error and empties the list: the session re-prefills, i.e. the next request re-sends the
// ledger in full, and the server's count shows what it still had.

import type { CacheProbe, KvState, ReplyOptions, ReplyRun, SamplingOptions, Tokenizer } from "../../core/engine";
import { CancelledError, CapacityError, EngineFailedError, StatefulChatError } from "../../core/errors";
import { ExclusiveAccess } from "../../core/exclusive-access";
import { completeWaiting, DEFAULT_COMPLETION_TIMEOUTS, REAL_REMOTE_CLOCK, type CompletionTimeouts, type RemoteClock } from "./completion-waits";
import type { CompletionResult, ServerDialect } from "./dialect";
import type { ServerStatusListener } from "../../core/server-status";
import type { BusyRetryPolicy } from "./status";
/** After the reply's natural end (an end token, the token budget) a cancel waits this long for the server's final event (its cache count). */
const FINAL_EVENT_GRACE_MS = 2_000;

export interface RemoteStateContext {
  readonly dialect: ServerDialect;
  readonly tokenizer: Tokenizer;
  /** An end-of-generation token to stand for the end when a server stops at one without streaming it. */
  readonly endToken?: number;
  readonly retry: BusyRetryPolicy;
  /** How long a completion may stay queued or silent (defaults: queued as long as the busy wait, silent 5 min). */
  readonly timeouts?: CompletionTimeouts;
  /** Tests: a clock they advance by hand. */
  readonly clock?: RemoteClock;
}

export class RemoteKvState implements KvState {
  /** The tokens this session has given the server (what its cache should hold). */
  private tokens: number[] = [];
  /** The llama-server slot that served this session last: its prompt cache holds our tokens. */
  private slot: number | undefined;
  private disposed = false;
  private readonly access = new ExclusiveAccess("remote state", () => this.disposed, (error) =>
    error instanceof StatefulChatError ? error : new EngineFailedError(`remote backend: ${error instanceof Error ? error.message : String(error)}`, { cause: error }),
  );
  private inFlight: AbortController | undefined;
  /** The server's cache count of the last completion. */
  lastServerCached: number | undefined;
  /** What the server said its cache held when the last completion ended, and our token list then. */
  private serverHeld: { readonly held: number; readonly tokens: readonly number[] } | undefined;
  private lastServerHeld: number | undefined;

  readonly generateReply: (tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void) => ReplyRun;

  constructor(
    private readonly context: RemoteStateContext,
    readonly capacity: number,
    private readonly onStatus: ServerStatusListener | undefined,
    private readonly onDispose: () => void,
  ) {
    this.generateReply = (tokens, options, onToken) => this.runReply(tokens, options, onToken);
  }

  get length(): number {
    return this.tokens.length;
  }

  private get clock(): RemoteClock {
    return this.context.clock ?? REAL_REMOTE_CLOCK;
  }

  /** The slot this session is pinned to (llama-server), once a reply told. */
  get pinnedSlot(): number | undefined {
    return this.slot;
  }

  evaluate(tokens: readonly number[], sample?: SamplingOptions, signal?: AbortSignal): Promise<number | undefined> {
    return this.exclusive(async () => {
      if (tokens.length === 0) return undefined;
      if (this.length + tokens.length > this.capacity) throw new CapacityError(this.length, tokens.length, this.capacity);
      if (!sample) {
        // A new list, not a push: probeCache tells by identity that it changed since the server counted.
        this.tokens = [...this.tokens, ...tokens];
        return undefined;
      }
      // A single sampled token (the core's step loop): one request of one token.
      const prompt = [...this.tokens, ...tokens];
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      if (signal?.aborted) onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      let first: number | undefined;
      try {
        await this.complete(prompt, 1, sample, (ids) => (first ??= ids[0]), controller);
      } catch (error) {
        if (!(error instanceof CancelledError)) this.tokens = [];
        throw error;
      } finally {
        signal?.removeEventListener("abort", onAbort);
      }
      this.tokens = prompt;
      this.noteServerHeld();
      if (first === undefined) {
        if (this.context.endToken !== undefined) return this.context.endToken;
        throw new EngineFailedError("The inference server returned no token");
      }
      return first;
    });
  }

  private runReply(input: readonly number[], options: ReplyOptions, onToken: (token: number) => void): ReplyRun {
    const controller = new AbortController();
    const { tokenizer, endToken } = this.context;
    const taken: number[] = [];
    let endSeen = false;
    /** The server sampled a token after the last one taken, so it decoded every taken token. */
    let sampledBeyond = false;
    let settled = false;
    let endFinishing: (() => void) | undefined;
    const take = (token: number) => {
      taken.push(token);
      if (tokenizer.isEndOfGeneration(token)) endSeen = true;
      onToken(token);
    };
    const done = this.exclusive(async () => {
      if (input.length === 0 || options.maxTokens < 1) throw new EngineFailedError("generateReply needs input tokens and maxTokens >= 1");
      const writes = input.length + options.maxTokens - 1;
      if (this.length + writes > this.capacity) throw new CapacityError(this.length, writes, this.capacity);
      const prompt = [...this.tokens, ...input];
      let result: CompletionResult | undefined;
      try {
        result = await this.complete(prompt, options.maxTokens + 1, options.sample, (ids) => {
          for (const id of ids) {
            if (endSeen || taken.length >= options.maxTokens) sampledBeyond = true;
            else take(id);
          }
        }, controller);
      } catch (error) {
        if (!(error instanceof CancelledError)) {
          // The server may have lost this session's cache: the session re-sends it all.
          this.tokens = [];
          throw error;
        }
      } finally {
        settled = true;
        endFinishing?.();
      }
      // A server that stops at an end token without streaming it (vLLM, SGLang): stand for it.
      if (result?.endedAtEos && !endSeen && taken.length < options.maxTokens && endToken !== undefined) take(endToken);
      const decoded = sampledBeyond && !endSeen ? taken : taken.slice(0, -1);
      this.tokens = [...prompt, ...decoded];
      this.noteServerHeld();
      return this.tokens.length;
    });
    return {
      done,
      cancel: () => {
        if (settled || controller.signal.aborted) return;
        // The reply already ended on the server: let its last event (the cache count) arrive.
        if (endSeen || taken.length >= options.maxTokens) endFinishing ??= this.clock.after(FINAL_EVENT_GRACE_MS, () => controller.abort());
        else controller.abort();
      },
      serverCached: () => this.lastServerCached,
    };
  }

  /** One completion (completion-waits.ts: busy retries, queued, timeouts); the slot and the server's counts kept. */
  private async complete(prompt: readonly number[], maxTokens: number, sample: SamplingOptions, onTokens: (ids: readonly number[]) => void, controller: AbortController): Promise<CompletionResult> {
    this.inFlight = controller;
    this.lastServerCached = undefined;
    this.lastServerHeld = undefined;
    const { dialect, retry } = this.context;
    const timeouts = this.context.timeouts ?? { ...DEFAULT_COMPLETION_TIMEOUTS, queuedMs: retry.maxWaitMs };
    try {
      const result = await completeWaiting({ dialect, retry, timeouts, clock: this.clock, onStatus: this.onStatus }, { prompt, maxTokens, sample, slot: this.slot }, onTokens, controller.signal);
      if (result.slot !== undefined) this.slot = result.slot;
      this.lastServerCached = result.cached;
      this.lastServerHeld = result.held;
      return result;
    } finally {
      if (this.inFlight === controller) this.inFlight = undefined;
    }
  }

  /**
   * The server's own count (llama-server's `tokens_cached` at the end of the last completion),
   * while this state has sent nothing since and changed nothing: then the server's cache should
   * hold exactly our tokens. Undefined otherwise (tokens recorded but not sent yet, a truncate
   * the server sees only with the next request) and for servers that do not count (vLLM, SGLang).
   */
  probeCache(): Promise<CacheProbe | undefined> {
    return this.exclusive(async () => {
      const last = this.serverHeld;
      if (!last || last.tokens !== this.tokens) return undefined;
      return { held: last.held, source: `${this.context.dialect.kind} tokens_cached` };
    });
  }

  /** After a completion: what the server said it held, against the token list it now matches. */
  private noteServerHeld(): void {
    this.serverHeld = this.lastServerHeld === undefined ? undefined : { held: this.lastServerHeld, tokens: this.tokens };
  }

  truncate(length: number): Promise<void> {
    return this.exclusive(async () => {
      if (length < this.tokens.length) this.tokens = this.tokens.slice(0, length);
    });
  }

  /** A fresh state: nothing sent. The server's slot keeps what it had until a request replaces it (its count shows any overlap). */
  reset(): Promise<void> {
    return this.exclusive(async () => {
      this.tokens = [];
    });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.inFlight?.abort();
    this.onDispose();
  }

  private exclusive<T>(operation: () => Promise<T>): Promise<T> {
    return this.access.run(operation);
  }
}
