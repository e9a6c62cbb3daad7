// HTTP to the inference server. The API key goes to the configured origin only: redirects
// are never followed by fetch itself (`redirect: "manual"`); a same-origin redirect is
// followed here, with the key, and a redirect to any other origin is refused before
// anything (key, prompt) is sent there. A request sent on a keep-alive connection that the
// server closed at that moment is sent once more. Errors become the core's typed errors.

import { CancelledError, ServerRejectedError, ServerUnreachableError } from "../../core/errors";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** The API key, or where to read it on every request (the shell's secret storage, so a new key applies at once). */
export type ApiKeySource = string | undefined | (() => Promise<string | undefined>);

/** HTTP 429 or 503 (or a server-reported "no free slot"): retrying later may succeed. */
export class ServerBusyError extends ServerUnreachableError {
  constructor(
    message: string,
    readonly status: number,
    /** From a Retry-After header, when the server sent one. */
    readonly retryAfterMs?: number,
    /** e.g. "HTTP 503: Loading model". */
    readonly detail = `HTTP ${status}`,
  ) {
    super(message);
  }
}

const MAX_REDIRECTS = 5;
const ERROR_BODY_LIMIT = 2_000;

export interface RequestOptions {
  readonly method?: "GET" | "POST";
  readonly body?: unknown;
  readonly signal?: AbortSignal;
  /** Give up (ServerUnreachableError) when no response headers arrived by then. */
  readonly timeoutMs?: number;
}

export class ServerConnection {
  constructor(
    readonly base: URL,
    private readonly apiKey: ApiKeySource,
    private readonly fetchImpl: FetchLike = (input, init) => fetch(input, init),
  ) {}

  get origin(): string {
    return this.base.origin;
  }

  /** A URL of this server (`path` relative to the base URL, which may have a path prefix). */
  url(path: string): URL {
    return new URL(path.replace(/^\/+/, ""), this.base);
  }

  /** A 2xx response, or a typed error (ServerBusyError for 429/503). The caller reads the body. */
  async request(path: string, options: RequestOptions = {}): Promise<Response> {
    let url = this.url(path);
    let method = options.method ?? (options.body === undefined ? "GET" : "POST");
    let body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const timeout = options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs);
    const signal = timeout && options.signal ? AbortSignal.any([options.signal, timeout]) : (timeout ?? options.signal);
    const key = typeof this.apiKey === "function" ? await this.apiKey() : this.apiKey;
    let resent = false;
    for (let hop = 0; ; hop++) {
      let response: Response;
      try {
        response = await this.fetchImpl(url.href, { method, body, headers: this.headersFor(url, body !== undefined, key), redirect: "manual", signal });
      } catch (error) {
        if (options.signal?.aborted) throw new CancelledError();
        // Once per request, and only for a reused connection the server closed as we sent.
        if (!resent && !timeout?.aborted && closedReusedConnection(error)) {
          resent = true;
          hop--; // the same hop again, not a redirect
          continue;
        }
        if (timeout?.aborted) throw new ServerUnreachableError(`The inference server at ${this.origin} did not answer ${path} within ${Math.round(options.timeoutMs! / 1000)} s.`);
        throw new ServerUnreachableError(`Cannot reach the inference server at ${this.origin}: ${describeNetworkError(error)}.`, { cause: error });
      }
      if (response.status >= 300 && response.status < 400 && response.headers.has("location")) {
        await response.body?.cancel().catch(() => undefined);
        const target = new URL(response.headers.get("location")!, url);
        if (target.origin !== this.origin) {
          throw new ServerRejectedError(
            `The inference server redirected ${url.pathname} to another origin (${target.origin}); the request and the API key are not sent there. Set statefulChat.server.url to the server's own address.`,
            response.status,
          );
        }
        if (hop >= MAX_REDIRECTS) throw new ServerRejectedError(`The inference server redirected more than ${MAX_REDIRECTS} times (${url.href}).`, response.status);
        url = target;
        // 303 (and 301/302 after a POST, as browsers do) continue as a GET without a body.
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
          method = "GET";
          body = undefined;
        }
        continue;
      }
      if (response.ok) return response;
      throw await errorOf(response, path, this.origin);
    }
  }

  /** request() and its JSON body. */
  async json(path: string, options: RequestOptions = {}): Promise<unknown> {
    const response = await this.request(path, options);
    try {
      return await response.json();
    } catch (error) {
      throw new ServerRejectedError(`The inference server's answer to ${path} is not JSON: ${String(error)}`, response.status);
    }
  }

  private headersFor(url: URL, hasBody: boolean, key: string | undefined): Record<string, string> {
    const headers: Record<string, string> = { accept: "application/json, text/event-stream" };
    if (hasBody) headers["content-type"] = "application/json";
    // Checked per request, not only at the start: the key is for this origin alone.
    if (key && url.origin === this.origin) headers.authorization = `Bearer ${key}`;
    return headers;
  }
}

/**
 * fetch failed with "other side closed" (undici's UND_ERR_SOCKET) on a connection that had
 * already carried a response: a keep-alive connection the server closed while the request
 * was on its way, so the server never started on it. undici resends such a request itself
 * only when its method is idempotent (GET), never a POST (a completion, a tokenize); on a new
 * connection it goes through. On a fresh connection (nothing read before) the same error
 * means the server dropped this very request: that is reported, not resent. (Bytes read
 * can also be the start of this response's headers from a server that then closed: one
 * resend there costs a repeated request, and the state re-sends its whole ledger anyway.
 * A reset, ECONNRESET, carries no sign of which connection it hit, so it is reported.)
 */
function closedReusedConnection(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown; socket?: { bytesRead?: unknown } } } | undefined)?.cause;
  const bytesRead = cause?.socket?.bytesRead;
  return cause?.code === "UND_ERR_SOCKET" && typeof bytesRead === "number" && bytesRead > 0;
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ""}`;
  if (cause?.message) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** The server's own message from an error body (llama-server, vLLM and SGLang shapes). */
export function serverMessageOf(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const error = parsed.error;
    if (typeof error === "string") return error;
    if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") return (error as { message: string }).message;
    if (typeof parsed.message === "string") return parsed.message;
    if (typeof parsed.detail === "string") return parsed.detail;
  } catch {
    // not JSON: the text itself
  }
  return text.trim().slice(0, 300);
}

async function errorOf(response: Response, path: string, origin: string): Promise<Error> {
  const text = (await response.text().catch(() => "")).slice(0, ERROR_BODY_LIMIT);
  const message = serverMessageOf(text);
  const what = `HTTP ${response.status}${message ? `: ${message}` : ""}`;
  if (response.status === 429 || response.status === 503) {
    return new ServerBusyError(`The inference server at ${origin} is busy (${what}).`, response.status, retryAfterMs(response.headers.get("retry-after")), what);
  }
  if (response.status === 401 || response.status === 403) {
    return new ServerRejectedError(`The inference server at ${origin} refused the request (${what}). Set the key with Stateful Chat: Set Server API Key….`, response.status);
  }
  if (response.status >= 500) {
    return new ServerUnreachableError(`The inference server at ${origin} failed on ${path} (${what}).`);
  }
  return new ServerRejectedError(`The inference server at ${origin} rejected ${path} (${what}).`, response.status);
}

/** Retry-After: seconds, or an HTTP date. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
