// LM Studio's models folder: `<publisher>/<repo>/*.gguf` under `~/.lmstudio/models` (or under
// the LM Studio home named in `~/.lmstudio-home-pointer`), and the older `~/.cache/lm-studio/models`.

import { readFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { type Candidate, code, describe, type StoreEnv, StoreScan } from "./types";

/** Publisher / repo / file, with one level of slack for hand-made layouts. */
const MAX_DEPTH = 4;

async function lmStudioRoots(store: StoreEnv, scan: StoreScan): Promise<string[]> {
  const roots: string[] = [];
  const pointerFile = join(store.home, ".lmstudio-home-pointer");
  try {
    const pointed = (await readFile(pointerFile, "utf8")).trim();
    if (pointed && isAbsolute(pointed)) roots.push(join(pointed, "models"));
  } catch (error) {
    if (code(error) !== "ENOENT") scan.problem(`cannot read ${pointerFile} (${describe(error)})`);
  }
  roots.push(join(store.home, ".lmstudio", "models"), join(store.home, ".cache", "lm-studio", "models"));
  return [...new Set(roots)];
}

export async function lmStudioCandidates(store: StoreEnv, scan: StoreScan): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const root of await lmStudioRoots(store, scan)) {
    for (const file of await scan.ggufFiles(root, MAX_DEPTH)) {
      out.push({ path: file.path, name: file.relative, source: "lm-studio", ...(file.parts ? { parts: file.parts } : {}) });
    }
  }
  return out;
}
