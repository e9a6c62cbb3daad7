// What the remote backend connects to: the server's URL, which kind of server it is, and the
// API key (kept by the shell in VS Code's SecretStorage, never in settings). Pure: no I/O.

import { ServerRejectedError } from "../../core/errors";

/** The one list of server kinds (setting statefulChat.server.kind, CLI --server-kind, the engine request). */
export const SERVER_KINDS = ["auto", "llama-server", "vllm", "sglang"] as const;
export type ServerKindChoice = (typeof SERVER_KINDS)[number];
export type ServerKind = Exclude<ServerKindChoice, "auto">;

export function isServerKindChoice(value: unknown): value is ServerKindChoice {
  return typeof value === "string" && (SERVER_KINDS as readonly string[]).includes(value);
}

export interface RemoteServerOptions {
  /** Base URL of the server, e.g. `http://gpu-box:8080` (a path prefix behind a proxy is kept). */
  readonly url: string;
  /** `auto` (default) asks the server: llama-server answers `/props`, vLLM and SGLang name themselves in `/v1/models`. */
  readonly kind?: ServerKindChoice;
  /** Sent as `Authorization: Bearer …` to the URL's origin only (see http.ts). */
  readonly apiKey?: string;
  /** How long a turn waits, retrying, while the server answers 429/503 (default 120 s). */
  readonly busyWaitMs?: number;
}

/**
 * The server URL as the base every endpoint is resolved against: http or https, no user
 * info (credentials go in the API key), ending in `/` so a path prefix is kept.
 */
export function serverBaseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new ServerRejectedError(`The server URL "${url}" is not a URL (statefulChat.server.url, e.g. http://gpu-box:8080).`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ServerRejectedError(`The server URL must be http or https, not ${parsed.protocol} (statefulChat.server.url).`);
  }
  if (parsed.username || parsed.password) {
    throw new ServerRejectedError("The server URL must not carry a user name or password: set the API key with Stateful Chat: Set Server API Key….");
  }
  parsed.search = "";
  parsed.hash = "";
  if (!parsed.pathname.endsWith("/")) parsed.pathname += "/";
  return parsed;
}
