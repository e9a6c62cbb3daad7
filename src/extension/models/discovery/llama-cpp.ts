// llama.cpp's download cache (`llama-server -hf …`): `$LLAMA_CACHE`, else its per-platform cache
// folder (common's fs_get_cache_directory): `$XDG_CACHE_HOME/llama.cpp` or `~/.cache/llama.cpp`,
// macOS `~/Library/Caches/llama.cpp`, Windows `%LOCALAPPDATA%\llama.cpp`. Files are flat,
// `<org>_<repo>_<file>.gguf` (with `.json` etag files beside them); a cache in the hub layout
// (`models--<org>--<repo>/`) is read as one.

import { join } from "node:path";
import { hubCacheCandidates } from "./huggingface";
import { type Candidate, type StoreEnv, StoreScan } from "./types";

function llamaCppRoot(store: StoreEnv): string {
  const explicit = store.folder("LLAMA_CACHE");
  if (explicit) return explicit;
  if (store.platform === "darwin") return join(store.home, "Library", "Caches", "llama.cpp");
  if (store.platform === "win32") return join(store.folder("LOCALAPPDATA") ?? join(store.home, "AppData", "Local"), "llama.cpp");
  return join(store.folder("XDG_CACHE_HOME") ?? join(store.home, ".cache"), "llama.cpp");
}

export async function llamaCppCandidates(store: StoreEnv, scan: StoreScan): Promise<Candidate[]> {
  const root = llamaCppRoot(store);
  const flat = (await scan.ggufFiles(root, 1)).map((file): Candidate => ({ path: file.path, name: file.relative, source: "llama.cpp", ...(file.parts ? { parts: file.parts } : {}) }));
  return [...flat, ...(await hubCacheCandidates(root, scan, "llama.cpp"))];
}
