// A fixture Ollama store (the layout `ollama pull` leaves: a JSON manifest per model tag whose
// model layer names a blob by digest) holding the default GGUF as one model, for the suites
// that show model discovery to a user. The blob is a symlink: no weights are copied.

import { mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_MODEL } from "../../src/extension/models/default-model";

export interface FixtureOllamaStore {
  /** The folder to pass as OLLAMA_MODELS. */
  readonly root: string;
  /** The model's name as `ollama list` shows it (and our picker). */
  readonly name: string;
  /** The blob the manifest points to (what becomes statefulChat.modelPath). */
  readonly blob: string;
}

export function fixtureOllamaStore(root: string, gguf: string, model = "smollm2", tag = "135m"): FixtureOllamaStore {
  rmSync(root, { recursive: true, force: true });
  const blobs = join(root, "blobs");
  const manifestDir = join(root, "manifests", "registry.ollama.ai", "library", model);
  mkdirSync(blobs, { recursive: true });
  mkdirSync(manifestDir, { recursive: true });
  // The default model's own sha256 is its digest, as Ollama would name its blob.
  const blob = join(blobs, `sha256-${DEFAULT_MODEL.sha256}`);
  symlinkSync(gguf, blob);
  const manifest = {
    schemaVersion: 2,
    mediaType: "application/vnd.docker.distribution.manifest.v2+json",
    layers: [{ mediaType: "application/vnd.ollama.image.model", digest: `sha256:${DEFAULT_MODEL.sha256}`, size: statSync(gguf).size }],
  };
  writeFileSync(join(manifestDir, tag), JSON.stringify(manifest));
  return { root, name: `${model}:${tag}`, blob };
}
