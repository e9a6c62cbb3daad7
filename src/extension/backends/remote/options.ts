// The server's URL as the remote backend resolves endpoints against it, and the kinds of
// server it talks to. Pure: no I/O.

import type { ServerKindChoice } from "../../core/engine-options";
import { ServerRejectedError } from "../../core/errors";

/** A server kind as detected or set (SERVER_KINDS and RemoteServerOptions, the user's choices: core/engine-options.ts). */
export type ServerKind = Exclude<ServerKindChoice, "auto">;

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
