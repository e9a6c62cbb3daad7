// Which model file a KV snapshot was made with: size, modification time and a hash of its
// header. A snapshot of another model must never be loaded (it can crash llama.cpp), and a
// file replaced in place keeps its path, so the path alone proves nothing.

import { createHash } from "node:crypto";
import { open, stat } from "node:fs/promises";

export interface ModelIdentity {
  readonly size: number;
  readonly mtimeMs: number;
  /** sha256 of the first HEADER_BYTES bytes (a GGUF's header and metadata; a Core ML manifest). */
  readonly headerSha256: string;
}

const HEADER_BYTES = 1 << 20;
const cache = new Map<string, Promise<ModelIdentity>>();

async function compute(path: string): Promise<ModelIdentity> {
  const info = await stat(path);
  const hash = createHash("sha256");
  if (info.isFile()) {
    const file = await open(path, "r");
    try {
      const buffer = Buffer.alloc(Math.min(HEADER_BYTES, info.size));
      const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
      hash.update(buffer.subarray(0, bytesRead));
    } finally {
      await file.close();
    }
  } else {
    hash.update(path); // A Core ML package folder: its size and mtime say when it changed.
  }
  return { size: info.size, mtimeMs: info.mtimeMs, headerSha256: hash.digest("hex") };
}

/** The identity of the model at `path` (hashed once per size and mtime). */
export async function modelIdentity(path: string): Promise<ModelIdentity> {
  const info = await stat(path);
  const key = `${path}|${info.size}|${info.mtimeMs}`;
  let identity = cache.get(key);
  if (!identity) {
    identity = compute(path);
    cache.set(key, identity);
    identity.catch(() => cache.delete(key));
  }
  return identity;
}

export function sameModel(a: ModelIdentity, b: ModelIdentity): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.headerSha256 === b.headerSha256;
}
