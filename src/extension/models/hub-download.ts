// Downloads catalog models from a Hugging Face-compatible hub: one resumable, verified file
// for GGUF; every file of the repository, read at one commit, for Core ML folders. Every
// file is verified: a GGUF against its pinned sha256 or the one the hub announces on its
// redirect, a folder's files against the checksums the hub's tree lists at that commit.

import { mkdir, readdir, rename, rm } from "node:fs/promises";
import { join, normalize, relative, sep } from "node:path";
import { hubEndpoint, type CatalogEntry } from "./catalog";
import { downloadFile, type DownloadProgress } from "./download";
import { DownloadError } from "./download-errors";
import { fileMatches, type FileDigest } from "./file-digest";
import { listRepositoryFiles, resolveCommit, type HubFileEntry } from "./hub-api";

export interface ModelDownloadOptions {
  readonly onProgress?: (progress: DownloadProgress & { file: string }) => void;
  readonly signal?: AbortSignal;
}

function fileUrl(repo: string, revision: string, path: string): string {
  return `${hubEndpoint()}/${repo}/resolve/${encodeURIComponent(revision)}/${path.split("/").map(encodeURIComponent).join("/")}`;
}

function digestOf(repo: string, item: HubFileEntry): FileDigest {
  if (item.lfsSha256) return { kind: "sha256", hex: item.lfsSha256 };
  if (item.oid) return { kind: "git-blob-sha1", hex: item.oid };
  throw new DownloadError(`The hub lists no checksum for ${repo}/${item.path}; refusing to download it unverified`);
}

/** Returns the path of the downloaded model (a file for GGUF, a folder for Core ML). */
export async function downloadCatalogModel(entry: CatalogEntry, modelsDir: string, options: ModelDownloadOptions = {}): Promise<string> {
  const revision = entry.revision ?? "main";
  if (entry.file) {
    const file = entry.file;
    const dest = join(modelsDir, file);
    await downloadFile(fileUrl(entry.repo, revision, file), dest, {
      sha256: entry.sha256,
      verifyHubChecksum: true,
      signal: options.signal,
      onProgress: (p) => options.onProgress?.({ ...p, file }),
    });
    return dest;
  }
  const folder = join(modelsDir, entry.repo.replace(/\//g, "--"));
  const partial = `${folder}.partial`;
  // One commit for the listing and every file: a branch that moves meanwhile cannot mix versions.
  const commit = await resolveCommit(entry.repo, revision, options.signal);
  const items = await listRepositoryFiles(entry.repo, commit, options.signal);
  await mkdir(partial, { recursive: true });
  for (const item of items) {
    const target = normalize(join(partial, item.path));
    if (!target.startsWith(partial + sep)) throw new DownloadError(`Refusing a file outside the model folder: ${item.path}`);
    const digest = digestOf(entry.repo, item);
    // Finished in an earlier, interrupted run: verified again, not fetched again.
    if (await fileMatches(target, digest)) continue;
    await downloadFile(fileUrl(entry.repo, commit, item.path), target, {
      ...(digest.kind === "sha256" ? { sha256: digest.hex } : { gitBlobId: digest.hex }),
      signal: options.signal,
      onProgress: (p) => options.onProgress?.({ ...p, file: item.path }),
    });
  }
  await removeUnlisted(partial, new Set(items.map((item) => normalize(item.path))));
  await rm(folder, { recursive: true, force: true });
  await rename(partial, folder);
  return folder;
}

/** An interrupted run at an older commit may have left files (or their `.part`) the model no longer has. */
async function removeUnlisted(folder: string, listed: ReadonlySet<string>): Promise<void> {
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    const path = relative(folder, join(entry.parentPath, entry.name));
    if (!entry.isDirectory() && !listed.has(path)) await rm(join(folder, path), { force: true });
  }
}
