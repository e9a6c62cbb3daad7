// Downloads catalog models from a Hugging Face-compatible hub: one resumable, verified file
// for GGUF; every file of the repository for Core ML folders.

import { mkdir, rename, rm } from "node:fs/promises";
import { join, normalize, sep } from "node:path";
import { hubEndpoint, type CatalogEntry } from "./catalog";
import { downloadFile, DownloadError, type DownloadProgress } from "./download";

interface TreeItem {
  readonly type: string;
  readonly path: string;
  readonly size?: number;
  readonly lfs?: { readonly oid?: string };
}

export interface ModelDownloadOptions {
  readonly onProgress?: (progress: DownloadProgress & { file: string }) => void;
  readonly signal?: AbortSignal;
}

function fileUrl(repo: string, path: string): string {
  return `${hubEndpoint()}/${repo}/resolve/main/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** Returns the path of the downloaded model (a file for GGUF, a folder for Core ML). */
export async function downloadCatalogModel(entry: CatalogEntry, modelsDir: string, options: ModelDownloadOptions = {}): Promise<string> {
  if (entry.file) {
    const dest = join(modelsDir, entry.file);
    await downloadFile(fileUrl(entry.repo, entry.file), dest, {
      sha256: entry.sha256,
      verifyHubChecksum: true,
      signal: options.signal,
      onProgress: (p) => options.onProgress?.({ ...p, file: entry.file! }),
    });
    return dest;
  }
  const folder = join(modelsDir, entry.repo.replace(/\//g, "--"));
  const partial = `${folder}.partial`;
  const response = await fetch(`${hubEndpoint()}/api/models/${entry.repo}/tree/main?recursive=1`, { signal: options.signal }).catch(
    (error: unknown) => {
      throw new DownloadError(`Cannot reach the model hub: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    },
  );
  if (!response.ok) throw new DownloadError(`Listing ${entry.repo} failed: HTTP ${response.status}`);
  const items = ((await response.json()) as TreeItem[]).filter((i) => i.type === "file");
  await mkdir(partial, { recursive: true });
  for (const item of items) {
    const target = normalize(join(partial, item.path));
    if (!target.startsWith(partial + sep)) throw new DownloadError(`Refusing a file outside the model folder: ${item.path}`);
    await downloadFile(fileUrl(entry.repo, item.path), target, {
      sha256: item.lfs?.oid,
      signal: options.signal,
      onProgress: (p) => options.onProgress?.({ ...p, file: item.path }),
    });
  }
  await rm(folder, { recursive: true, force: true });
  await rename(partial, folder);
  return folder;
}
