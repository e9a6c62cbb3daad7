// Ollama's store: `$OLLAMA_MODELS`, else `~/.ollama/models` (and, on Linux, the service's
// /usr/share/ollama/.ollama/models). `manifests/<registry>/<namespace>/<model>/<tag>` are JSON
// manifests whose `layers[]` name blobs by digest; the layer with mediaType
// `application/vnd.ollama.image.model` is the GGUF, stored as `blobs/sha256-<hex>` (Ollama's
// GetBlobsPath turns the digest's ':' into '-'). Licenses, templates, params, projectors are
// blobs of other media types and are not looked at.

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Candidate, describe, type StoreEnv, StoreScan } from "./types";

const OLLAMA_MODEL_MEDIA_TYPE = "application/vnd.ollama.image.model";
const DEFAULT_REGISTRY = "registry.ollama.ai";
const DIGEST = /^sha256[:-]([0-9a-f]{64})$/i;

function ollamaRoots(store: StoreEnv): string[] {
  const roots = [store.folder("OLLAMA_MODELS") ?? join(store.home, ".ollama", "models")];
  if (store.systemStores && store.platform === "linux") roots.push("/usr/share/ollama/.ollama/models");
  return roots;
}

/** `qwen2.5:7b`; `user/model:tag` outside `library`; `hf.co/org/repo:tag` outside Ollama's registry (as `ollama list` shows them). */
function ollamaModelName(registry: string, namespace: string, model: string, tag: string): string {
  const prefix = registry !== DEFAULT_REGISTRY ? `${registry}/${namespace}/` : namespace !== "library" ? `${namespace}/` : "";
  return `${prefix}${model}:${tag}`;
}

export async function ollamaCandidates(store: StoreEnv, scan: StoreScan): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const root of ollamaRoots(store)) {
    const manifests = join(root, "manifests");
    for (const registry of (await scan.list(manifests)) ?? []) {
      if ((await scan.kind(manifests, registry)) !== "dir") continue;
      const registryDir = join(manifests, registry.name);
      for (const namespace of (await scan.list(registryDir)) ?? []) {
        if ((await scan.kind(registryDir, namespace)) !== "dir") continue;
        const namespaceDir = join(registryDir, namespace.name);
        for (const model of (await scan.list(namespaceDir)) ?? []) {
          if ((await scan.kind(namespaceDir, model)) !== "dir") continue;
          const modelDir = join(namespaceDir, model.name);
          for (const tag of (await scan.list(modelDir)) ?? []) {
            if ((await scan.kind(modelDir, tag)) !== "file") continue;
            const name = ollamaModelName(registry.name, namespace.name, model.name, tag.name);
            const blob = await modelBlob(join(modelDir, tag.name), name, scan);
            if (blob) out.push({ path: join(root, "blobs", blob), name, source: "ollama" });
          }
        }
      }
    }
  }
  return out;
}

/** The blob file name of a manifest's model layer, or undefined (reported) when it has none. */
async function modelBlob(manifestPath: string, name: string, scan: StoreScan): Promise<string | undefined> {
  let manifest: unknown;
  try {
    const text = await readFile(manifestPath, "utf8");
    if (text.length > 1024 * 1024) throw new Error("larger than 1 MB");
    manifest = JSON.parse(text);
  } catch (error) {
    scan.problem(`cannot read the manifest of ${name} (${manifestPath}: ${error instanceof SyntaxError ? `bad JSON: ${error.message}` : describe(error)})`);
    return undefined;
  }
  const layers = typeof manifest === "object" && manifest !== null ? (manifest as { layers?: unknown }).layers : undefined;
  if (!Array.isArray(layers)) {
    scan.problem(`the manifest of ${name} (${manifestPath}) has no layers`);
    return undefined;
  }
  const layer = layers.find((l): l is { digest?: unknown } => typeof l === "object" && l !== null && (l as { mediaType?: unknown }).mediaType === OLLAMA_MODEL_MEDIA_TYPE);
  if (!layer) {
    scan.problem(`${name} has no GGUF model layer (a remote or non-GGUF model); skipped`);
    return undefined;
  }
  const digest = typeof layer.digest === "string" ? DIGEST.exec(layer.digest) : null;
  if (!digest) {
    scan.problem(`the manifest of ${name} (${manifestPath}) has a malformed model digest`);
    return undefined;
  }
  return `sha256-${digest[1]!.toLowerCase()}`;
}
