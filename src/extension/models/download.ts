// Resumable, checksum-verified HTTP(S) download. Bytes go to `<dest>.part`; an interrupted
// download resumes with a Range request (download-resume.ts says when it may); the file is
// renamed into place only once it matches its checksum, so a half-written or unverified
// model is never mistaken for a good one. The checksum is pinned by the caller, or, for a
// catalog model, the sha256 the hub announces on its redirect; with neither the download is
// refused. A signal ends the download with the core's CancelledError and keeps `.part` for
// the next resume.

import { createWriteStream } from "node:fs";
import { mkdir, rename, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { CancelledError } from "../core/errors";
import {
  isRequestedRange,
  readPartialState,
  removePartial,
  removePartialState,
  resumeHeaders,
  validatorOf,
  writePartialState,
  type PartialState,
} from "./download-resume";
import { ChecksumMismatchError, DownloadError, PinnedChecksumConflictError, UnverifiableDownloadError } from "./download-errors";
import { describeDigest, digestOfFile, sameDigest, type FileDigest } from "./file-digest";
import { fetchThroughHub } from "./hub-redirects";

export { DownloadError } from "./download-errors";

export interface DownloadProgress {
  readonly receivedBytes: number;
  readonly totalBytes?: number;
}

export interface DownloadOptions {
  /** The file's sha256, pinned by the caller. A hub that announces another one stops the download before its first byte. */
  readonly sha256?: string;
  /** The file's sha512 in hex (an npm tarball's integrity, gpu-binaries/npm-package.ts), pinned by the caller. */
  readonly sha512?: string;
  /** For a small non-LFS file of a hub repository: its git blob id, the only checksum the hub's tree lists for it. */
  readonly gitBlobId?: string;
  /**
   * Without a pinned checksum, verify the sha256 the hub announces on its redirect (X-Linked-Etag);
   * a download with neither is refused. Defaults to false.
   */
  readonly verifyHubChecksum?: boolean;
  readonly onProgress?: (progress: DownloadProgress) => void;
  readonly signal?: AbortSignal;
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

function pinnedDigest(options: DownloadOptions): FileDigest | undefined {
  if (options.sha256) return { kind: "sha256", hex: options.sha256.toLowerCase() };
  if (options.sha512) return { kind: "sha512", hex: options.sha512.toLowerCase() };
  if (options.gitBlobId) return { kind: "git-blob-sha1", hex: options.gitBlobId.toLowerCase() };
  return undefined;
}

function expectedDigest(url: string, options: DownloadOptions, linkedSha256: string | undefined): FileDigest {
  const pinned = pinnedDigest(options);
  if (pinned?.kind === "sha256" && linkedSha256 && linkedSha256 !== pinned.hex) {
    throw new PinnedChecksumConflictError(url, pinned.hex, linkedSha256);
  }
  if (pinned) return pinned;
  if (options.verifyHubChecksum && linkedSha256) return { kind: "sha256", hex: linkedSha256 };
  throw new UnverifiableDownloadError(url);
}

export async function downloadFile(url: string, dest: string, options: DownloadOptions = {}): Promise<void> {
  await mkdir(dirname(dest), { recursive: true });
  const partial = `${dest}.part`;
  const pinned = pinnedDigest(options);
  // A partial is continued only with its state, and only toward the same checksum.
  const saved = await readPartialState(partial);
  let resuming: { state: PartialState; offset: number } | undefined =
    saved && (!pinned || sameDigest(saved.digest, pinned)) ? { state: saved, offset: await sizeOf(partial) } : undefined;
  if (resuming?.offset === 0) resuming = undefined;
  let expected: FileDigest;
  for (;;) {
    const offset = resuming?.offset ?? 0;
    const { response, linkedSha256, linkedSize } = await fetchThroughHub(url, {
      headers: resumeHeaders(offset, resuming?.state.validator),
      signal: options.signal,
      pinnedSha256: pinned?.kind === "sha256" ? pinned.hex : undefined,
    });
    const rangeUnsatisfiable = response.status === 416 && resuming !== undefined;
    try {
      if ((!response.ok && !rangeUnsatisfiable) || (response.ok && !response.body)) {
        throw new DownloadError(`Download of ${url} failed: HTTP ${response.status}`);
      }
      expected = expectedDigest(url, options, linkedSha256);
    } catch (error) {
      await response.body?.cancel();
      throw error;
    }
    if (resuming && !sameDigest(resuming.state.digest, expected)) {
      // The hub now serves another version of the file: its bytes cannot continue this partial.
      await response.body?.cancel();
      resuming = undefined;
      continue;
    }
    if (rangeUnsatisfiable) {
      // The partial is as long as the file (or longer): it is the file only if it verifies.
      await response.body?.cancel();
      if ((await digestOfFile(partial, expected.kind)) !== expected.hex) {
        resuming = undefined;
        continue;
      }
      return moveIntoPlace(partial, dest);
    }
    if (response.status === 206 && !isRequestedRange(response.headers, offset, linkedSize)) {
      await response.body?.cancel();
      if (!resuming) throw new DownloadError(`Download of ${url} failed: a partial answer (HTTP 206) to a request for the whole file`);
      resuming = undefined;
      continue;
    }
    // A 200 to a resumed request is the whole file (If-Range saw it changed, or Range was ignored).
    const start = response.status === 206 ? offset : 0;
    if (start === 0) await writePartialState(partial, { digest: expected, validator: validatorOf(response.headers) });
    await receiveBody(url, response, partial, start, linkedSize, options);
    break;
  }
  const actual = await digestOfFile(partial, expected.kind);
  if (actual !== expected.hex) {
    await removePartial(partial);
    throw new ChecksumMismatchError(url, describeDigest(expected), actual);
  }
  await moveIntoPlace(partial, dest);
}

/** Only ever called for a partial that has just verified. */
async function moveIntoPlace(partial: string, dest: string): Promise<void> {
  await rename(partial, dest);
  await removePartialState(partial);
}

async function receiveBody(
  url: string,
  response: Response,
  partial: string,
  start: number,
  linkedSize: number | undefined,
  options: DownloadOptions,
): Promise<void> {
  const length = Number(response.headers.get("content-length") ?? NaN);
  const totalBytes = linkedSize ?? (Number.isFinite(length) ? start + length : undefined);
  const out = createWriteStream(partial, { flags: start > 0 ? "a" : "w" });
  let received = start;
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
      received += chunk.byteLength;
      options.onProgress?.({ receivedBytes: received, totalBytes });
      // Checked here, not left to fetch: a signal aborted after the last chunk arrived can
      // leave the body's next read pending forever (Node 20's fetch).
      if (options.signal?.aborted) throw new CancelledError();
    }
  } catch (error) {
    if (options.signal?.aborted || error instanceof CancelledError) throw new CancelledError();
    throw new DownloadError(`Download of ${url} was interrupted at ${received} bytes; it resumes next time`, { cause: error });
  } finally {
    await new Promise<void>((resolve) => out.end(() => resolve()));
  }
  // A body that ended early without an error is a drop too, not a file to verify and delete.
  if (totalBytes !== undefined && received < totalBytes) {
    throw new DownloadError(`Download of ${url} ended at ${received} of ${totalBytes} bytes; it resumes next time`);
  }
}
