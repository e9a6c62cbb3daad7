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

/**
 * How the model file changed since `saved` was taken, one phrase per field ("size 1 → 2
 * bytes"), empty when it did not: a refused snapshot says why in the log, so a refusal nobody
 * expected (a file touched, replaced by a copy, or another path) explains itself.
 */
export function modelDifferences(saved: ModelIdentity, current: ModelIdentity): string[] {
  const differences: string[] = [];
  if (saved.size !== current.size) differences.push(`size ${saved.size} → ${current.size} bytes`);
  if (saved.mtimeMs !== current.mtimeMs) differences.push(`modified ${timeOf(saved.mtimeMs, current.mtimeMs)} → ${timeOf(current.mtimeMs, saved.mtimeMs)}`);
  if (saved.headerSha256 !== current.headerSha256) differences.push(`header sha256 ${saved.headerSha256.slice(0, 12)}… → ${current.headerSha256.slice(0, 12)}…`);
  return differences;
}

/** A modification time as a date, or as the raw milliseconds when the two differ by less than the date shows. */
function timeOf(ms: number, other: number): string {
  const date = (t: number) => (Number.isFinite(t) ? new Date(t).toISOString() : String(t));
  return date(ms) === date(other) ? `${ms} ms` : date(ms);
}
