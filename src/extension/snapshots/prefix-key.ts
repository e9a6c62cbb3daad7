// The prefix store's key: what a KV cache file must have been made with to be loaded into this
// engine's states, the same rule the chat snapshots follow (snapshot-store.ts): the backend,
// the model file (size, modification time, header hash: a file replaced in place keeps its
// path) and the context size.

import type { EngineInfo } from "../core/engine";
import { modelIdentity } from "./model-identity";

/** The key for `info`'s engine, or undefined when its caches cannot be stored (a remote server, a model file that cannot be read). */
export async function prefixStoreKey(info: EngineInfo): Promise<string | undefined> {
  if (info.backend === "remote") return undefined;
  const model = await modelIdentity(info.modelPath).catch(() => undefined);
  return model && JSON.stringify({ backend: info.backend, model, contextSize: info.capacity });
}
