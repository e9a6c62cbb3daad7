// The Hugging Face hub cache: `$HF_HUB_CACHE` (or the older HUGGINGFACE_HUB_CACHE), else
// `$HF_HOME/hub`, else `$XDG_CACHE_HOME/huggingface/hub`, else `~/.cache/huggingface/hub`.
// A repo is `models--<org>--<name>/`, its files `snapshots/<revision>/<path>`, usually symlinks
// into `blobs/` (a download in progress is a `blobs/<hash>.incomplete` with no snapshot link yet).

import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Candidate, compare, type ModelSource, type StoreEnv, StoreScan } from "./types";

/** Folder levels inside a snapshot (`<rev>/sub/dir/file.gguf`). */
const SNAPSHOT_DEPTH = 4;

function huggingFaceRoot(store: StoreEnv): string {
  const hub = store.folder("HF_HUB_CACHE") ?? store.folder("HUGGINGFACE_HUB_CACHE");
  if (hub) return hub;
  const hfHome = store.folder("HF_HOME");
  if (hfHome) return join(hfHome, "hub");
  return join(store.folder("XDG_CACHE_HOME") ?? join(store.home, ".cache"), "huggingface", "hub");
}

/** `models--bartowski--Qwen2.5-7B-GGUF` → `bartowski/Qwen2.5-7B-GGUF`. */
function hubRepoName(folder: string): string | undefined {
  const match = /^models--(.+)$/.exec(folder);
  return match ? match[1]!.split("--").join("/") : undefined;
}

/**
 * The GGUF files of every model repo in a hub-layout cache, named `<org>/<repo>/<path>`. The
 * revision `refs/main` points to comes first; a file also in another revision is named
 * `<org>/<repo>/<path>@<rev>` there (the same blob linked twice is deduplicated later).
 */
export async function hubCacheCandidates(root: string, scan: StoreScan, source: ModelSource): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const repo of (await scan.list(root)) ?? []) {
    const repoName = hubRepoName(repo.name);
    if (!repoName || (await scan.kind(root, repo)) !== "dir") continue;
    const repoDir = join(root, repo.name);
    const snapshots = join(repoDir, "snapshots");
    const revisions = ((await scan.list(snapshots)) ?? []).map((e) => e.name); // none yet: a first download still in progress
    let main: string | undefined;
    try {
      main = (await readFile(join(repoDir, "refs", "main"), "utf8")).trim();
    } catch {
      // No refs/main (a revision pinned by hash only): every revision is listed by its files.
    }
    revisions.sort((a, b) => (a === main ? -1 : b === main ? 1 : compare(a, b)));
    const named = new Set<string>();
    for (const revision of revisions) {
      for (const file of await scan.ggufFiles(join(snapshots, revision), SNAPSHOT_DEPTH)) {
        let name = `${repoName}/${file.relative}`;
        if (named.has(name)) name = `${name}@${revision.slice(0, 7)}`;
        named.add(name);
        out.push({ path: file.path, name, source, ...(file.parts ? { parts: file.parts } : {}) });
      }
    }
  }
  return out;
}

export async function huggingFaceCandidates(store: StoreEnv, scan: StoreScan): Promise<Candidate[]> {
  return hubCacheCandidates(huggingFaceRoot(store), scan, "huggingface");
}
