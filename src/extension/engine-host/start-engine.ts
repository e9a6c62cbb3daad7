// Where an engine runs, decided in one place: a model with native code in its own engine
// process (a native crash costs a restart of that process, never the caller's), a remote
// server in the caller's process (HTTP only, no native code: each chat's waits reach its
// panel, and the API key is read per request). Callers get a LoadedEngine either way and never
// branch on the backend.

import { basename } from "node:path";
import { loadEngine, type LoadedEngine, type LoadHooks } from "../backends/load-engine";
import { abortable } from "../core/abort";
import type { EngineRequest } from "../core/engine-options";
import { ProxyEngine, type ProxyEngineOptions } from "./proxy-engine";

export interface StartEngineHooks {
  /** Ends the start: the engine process is stopped, a server's first requests aborted. */
  readonly signal: AbortSignal;
  /** Backend `remote`: the API key, read on every request. */
  readonly serverApiKey?: LoadHooks["serverApiKey"];
  /** An engine process exited unexpectedly (it restarts on the next call unless crash-looping). */
  readonly onCrash?: ProxyEngineOptions["onCrash"];
}

export async function startEngine(request: EngineRequest, hooks: StartEngineHooks): Promise<LoadedEngine> {
  if (request.backend === "remote") return connect(request, hooks);
  const { server: _unused, ...local } = request; // a local model's process needs no server
  const engine = await ProxyEngine.start(local, { onCrash: hooks.onCrash }, hooks.signal);
  return { engine, notice: engine.notice };
}

/** What starting this engine is called in a progress notification: "loading model.gguf", "connecting to http://…". */
export function startingDescription(request: EngineRequest): string {
  return request.backend === "remote" && request.server ? `connecting to ${request.server.url}` : `loading ${basename(request.modelPath)}`;
}

async function connect(request: EngineRequest, hooks: StartEngineHooks): Promise<LoadedEngine> {
  const { signal } = hooks;
  const connecting = loadEngine(request, { serverApiKey: hooks.serverApiKey, signal });
  // Connecting ends on the signal itself (its requests and waits); one whose last answer came
  // just as it was cancelled is closed again.
  const closeLate = (): void => void connecting.then((loaded) => loaded.engine.dispose(), () => undefined);
  signal.addEventListener("abort", closeLate, { once: true });
  // Once connected and handed on, a late cancel must not close an engine chats now hold.
  try {
    return await abortable(connecting, signal);
  } finally {
    signal.removeEventListener("abort", closeLate);
  }
}
