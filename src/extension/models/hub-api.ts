// The two Hugging Face hub API calls a Core ML folder download needs: which commit a
// revision (e.g. `main`) points to now, and the files of the repository at that commit, page
// by page (the tree API pages long listings with a Link: rel="next" header).

import { CancelledError } from "../core/errors";
import { hubEndpoint } from "./catalog";
import { DownloadError } from "./download-errors";

export interface HubFileEntry {
  readonly path: string;
  /** The git blob id; for an LFS file, that of its pointer. */
  readonly oid?: string;
  /** The sha256 of an LFS file's content. */
  readonly lfsSha256?: string;
}

const MAX_TREE_PAGES = 100;

async function getJson(url: string, what: string, signal?: AbortSignal): Promise<{ body: unknown; next?: string }> {
  let response: Response;
  try {
    response = await fetch(url, { signal });
  } catch (error) {
    if (signal?.aborted) throw new CancelledError();
    throw new DownloadError(`Cannot reach the model hub: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new DownloadError(`${what} failed: HTTP ${response.status}`);
  }
  const next = response.headers.get("link")?.match(/<([^>]+)>\s*;\s*rel="?next"?/)?.[1];
  try {
    return { body: await response.json(), next: next ? new URL(next, url).href : undefined };
  } catch (error) {
    throw new DownloadError(`${what} failed: the hub's answer is not JSON`, { cause: error });
  }
}

/** The commit `revision` points to: every file of a folder is then read at that one commit. */
export async function resolveCommit(repo: string, revision: string, signal?: AbortSignal): Promise<string> {
  const { body } = await getJson(`${hubEndpoint()}/api/models/${repo}/revision/${encodeURIComponent(revision)}`, `Looking up ${repo}@${revision}`, signal);
  const sha = typeof body === "object" && body !== null ? (body as Record<string, unknown>).sha : undefined;
  if (typeof sha !== "string" || !/^[0-9a-f]{40}$/.test(sha)) throw new DownloadError(`The hub named no commit for ${repo}@${revision}`);
  return sha;
}

export async function listRepositoryFiles(repo: string, commit: string, signal?: AbortSignal): Promise<HubFileEntry[]> {
  const files: HubFileEntry[] = [];
  let url: string | undefined = `${hubEndpoint()}/api/models/${repo}/tree/${commit}?recursive=true`;
  for (let page = 0; url; page++) {
    if (page === MAX_TREE_PAGES) throw new DownloadError(`Listing ${repo} took more than ${MAX_TREE_PAGES} pages`);
    const { body, next }: { body: unknown; next?: string } = await getJson(url, `Listing ${repo}`, signal);
    if (!Array.isArray(body)) throw new DownloadError(`Listing ${repo} failed: the hub's answer is not a list of files`);
    for (const item of body as unknown[]) {
      const entry = fileEntry(item);
      if (entry) files.push(entry);
    }
    url = next;
  }
  return files;
}

function fileEntry(item: unknown): HubFileEntry | undefined {
  if (typeof item !== "object" || item === null) return undefined;
  const { type, path, oid, lfs } = item as Record<string, unknown>;
  if (type !== "file" || typeof path !== "string") return undefined;
  const lfsOid = typeof lfs === "object" && lfs !== null ? (lfs as Record<string, unknown>).oid : undefined;
  return {
    path,
    oid: typeof oid === "string" && /^[0-9a-f]{40}$/.test(oid) ? oid : undefined,
    lfsSha256: typeof lfsOid === "string" && /^[0-9a-f]{64}$/.test(lfsOid) ? lfsOid : undefined,
  };
}
