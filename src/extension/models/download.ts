// Resumable, checksum-verified HTTP(S) download. Bytes go to `<dest>.part`; an interrupted
// download resumes with a Range request; the file is renamed into place only once its
// sha256 matches, so a half-written model is never mistaken for a good one. A signal ends
// the download with the core's CancelledError and keeps `.part` for the next resume.

import { createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { CancelledError } from "../core/errors";
import { sha256OfFile } from "./sha256";

export interface DownloadProgress {
  readonly receivedBytes: number;
  readonly totalBytes?: number;
}

export interface DownloadOptions {
  readonly sha256?: string;
  /** Without a pinned sha256, verify the one the hub announces (X-Linked-ETag / ETag of LFS files). */
  readonly verifyHubChecksum?: boolean;
  readonly onProgress?: (progress: DownloadProgress) => void;
  readonly signal?: AbortSignal;
}

export class DownloadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "DownloadError";
  }
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

export async function downloadFile(url: string, dest: string, options: DownloadOptions = {}): Promise<void> {
  await mkdir(dirname(dest), { recursive: true });
  const partial = `${dest}.part`;
  let offset = await sizeOf(partial);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: offset > 0 ? { Range: `bytes=${offset}-` } : {},
      signal: options.signal,
      redirect: "follow",
    });
  } catch (error) {
    if (options.signal?.aborted) throw new CancelledError();
    throw new DownloadError(`Cannot reach ${url}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const hubChecksum = sha256FromHeaders(response.headers);
  if (response.status === 416) {
    // The partial file is already complete (or bogus): verify below, restart if bad.
  } else if (!response.ok || !response.body) {
    throw new DownloadError(`Download of ${url} failed: HTTP ${response.status}`);
  } else {
    if (offset > 0 && response.status !== 206) offset = 0; // server ignored Range: start over
    const length = Number(response.headers.get("content-length") ?? NaN);
    const totalBytes = Number.isFinite(length) ? offset + length : undefined;
    const out = createWriteStream(partial, { flags: offset > 0 ? "a" : "w" });
    let received = offset;
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
        received += chunk.byteLength;
        options.onProgress?.({ receivedBytes: received, totalBytes });
      }
    } catch (error) {
      if (options.signal?.aborted) throw new CancelledError();
      throw new DownloadError(`Download of ${url} was interrupted at ${received} bytes; it resumes next time`, {
        cause: error,
      });
    } finally {
      await new Promise<void>((resolve) => out.end(() => resolve()));
    }
  }
  const expected = options.sha256 ?? (options.verifyHubChecksum ? hubChecksum : undefined);
  if (expected) {
    const actual = await sha256OfFile(partial);
    if (actual !== expected) {
      await rm(partial, { force: true });
      throw new DownloadError(`Checksum mismatch for ${url}: expected ${expected}, got ${actual}`);
    }
  }
  await rename(partial, dest);
}

function sha256FromHeaders(headers: Headers): string | undefined {
  for (const name of ["x-linked-etag", "etag"]) {
    const value = headers.get(name)?.replace(/^W\//, "").replace(/"/g, "");
    if (value && /^[0-9a-f]{64}$/.test(value)) return value;
  }
  return undefined;
}
