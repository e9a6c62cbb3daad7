// Follows redirects by hand, because the Hugging Face hub names the file on its redirect:
// the 302 from `resolve/<rev>/<file>` carries the file's sha256 as X-Linked-Etag and its
// size as X-Linked-Size, while the CDN it points to answers with its own ETag (an S3 or xet
// hash, not the sha256). `fetch`'s automatic redirects would hide the 302's headers.

import { CancelledError } from "../core/errors";
import { DownloadError, PinnedChecksumConflictError } from "./download-errors";

const MAX_REDIRECTS = 10;

export interface HubResponse {
  /** The last response, not a redirect. */
  readonly response: Response;
  /** The sha256 a redirect on the way announced (X-Linked-Etag). */
  readonly linkedSha256?: string;
  /** The byte size a redirect on the way announced (X-Linked-Size). */
  readonly linkedSize?: number;
}

export interface HubRequestOptions {
  readonly headers: Record<string, string>;
  readonly signal?: AbortSignal;
  /** A redirect announcing another sha256 ends the request there, before the CDN is asked for a byte. */
  readonly pinnedSha256?: string;
}

export async function fetchThroughHub(url: string, { headers, signal, pinnedSha256 }: HubRequestOptions): Promise<HubResponse> {
  let current = new URL(url);
  let linkedSha256: string | undefined;
  let linkedSize: number | undefined;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const response = await fetchOnce(current, headers, signal);
    if (![301, 302, 303, 307, 308].includes(response.status)) {
      // Served by the address asked, without a redirect (a mirror set in HF_ENDPOINT that
      // serves files itself): its own X-Linked-Etag names the file as a hub redirect would.
      // After a redirect, the CDN's headers are never read for it.
      if (hop === 0) {
        linkedSha256 = sha256FromLinkedEtag(response.headers);
        if (pinnedSha256 && linkedSha256 && linkedSha256 !== pinnedSha256) {
          await response.body?.cancel();
          throw new PinnedChecksumConflictError(url, pinnedSha256, linkedSha256);
        }
      }
      return { response, linkedSha256, linkedSize };
    }
    linkedSha256 = sha256FromLinkedEtag(response.headers) ?? linkedSha256;
    if (pinnedSha256 && linkedSha256 && linkedSha256 !== pinnedSha256) {
      await response.body?.cancel();
      throw new PinnedChecksumConflictError(url, pinnedSha256, linkedSha256);
    }
    const size = Number(response.headers.get("x-linked-size") ?? NaN);
    if (Number.isSafeInteger(size) && size >= 0) linkedSize = size;
    const location = response.headers.get("location");
    await response.body?.cancel();
    if (!location) throw new DownloadError(`${current.href} redirected (HTTP ${response.status}) without a Location`);
    current = new URL(location, current);
    if (current.protocol !== "https:" && current.protocol !== "http:") {
      throw new DownloadError(`${url} redirected to an unsupported address: ${current.protocol}`);
    }
  }
  throw new DownloadError(`${url} redirected more than ${MAX_REDIRECTS} times`);
}

async function fetchOnce(url: URL, headers: Record<string, string>, signal?: AbortSignal): Promise<Response> {
  try {
    return await fetch(url, { headers, signal, redirect: "manual" });
  } catch (error) {
    if (signal?.aborted) throw new CancelledError();
    throw new DownloadError(`Cannot reach ${url.origin}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

function sha256FromLinkedEtag(headers: Headers): string | undefined {
  const value = headers.get("x-linked-etag")?.replace(/^W\//, "").replace(/"/g, "").toLowerCase();
  return value && /^[0-9a-f]{64}$/.test(value) ? value : undefined;
}
