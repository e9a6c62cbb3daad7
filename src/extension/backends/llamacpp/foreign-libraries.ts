// Another llama.cpp's libraries loaded in place of node-llama-cpp's. The addon finds its
// libraries (libggml-base.so, libggml-cpu.so, libllama-common.so: names every llama.cpp build
// uses) through its RUNPATH, and LD_LIBRARY_PATH comes before RUNPATH. So a folder of another
// llama.cpp build on LD_LIBRARY_PATH (a user's own build, a llama-server's) puts its libraries
// under our addon: the engine then computes with that build's kernels, or corrupts its heap
// (found here: a bench run with llama-server's folder on LD_LIBRARY_PATH ran our engine on
// llama-server's libggml-cpu.so and ended in "double free or corruption"). The engine process
// is started without such folders; a process that has them on its own path is refused before it
// loads llama.cpp (loading corrupts its heap first), and one that loaded them anyway after.

import { existsSync } from "node:fs";
import { basename, delimiter, dirname, join } from "node:path";

const LLAMA_LIBRARY = /^lib(?:ggml|llama)[-.\w]*\.(?:so|dylib)(?:\.[\d.]+)?$/;
const ADDON = "llama-addon.node";

/**
 * The llama.cpp libraries a /proc/<pid>/maps text shows loaded from outside the folder of the
 * loaded llama-addon.node (where node-llama-cpp keeps a binary's libraries); none without an addon.
 */
export function foreignLlamaLibraries(maps: string): string[] {
  const paths = new Set<string>();
  for (const line of maps.split("\n")) {
    const at = line.indexOf("/");
    if (at >= 0) paths.add(line.slice(at).trim());
  }
  const addon = [...paths].find((path) => basename(path) === ADDON);
  if (addon === undefined) return [];
  const home = dirname(addon);
  return [...paths].filter((path) => LLAMA_LIBRARY.test(basename(path)) && dirname(path) !== home).sort();
}

/** Whether a folder holds a llama.cpp build's shared libraries (the names the addon needs). */
function holdsLlamaLibraries(folder: string): boolean {
  return ["libggml-base.so", "libllama-common.so", "libggml-base.dylib"].some((name) => existsSync(join(folder, name)));
}

/**
 * A library path (LD_LIBRARY_PATH's value) without the folders `holdsLlama` says hold a llama.cpp
 * build's libraries, with the folders dropped; the value unchanged when none is. Any such folder
 * is another build's to the addon, which loads its own through RUNPATH, never through this path.
 */
export function withoutLlamaFolders(value: string | undefined, holdsLlama: (folder: string) => boolean = holdsLlamaLibraries): { value: string | undefined; dropped: string[] } {
  if (!value) return { value, dropped: [] };
  const folders = value.split(delimiter);
  const dropped = folders.filter((folder) => folder !== "" && holdsLlama(folder));
  if (dropped.length === 0) return { value, dropped };
  const kept = folders.filter((folder) => !dropped.includes(folder));
  return { value: kept.length > 0 ? kept.join(delimiter) : undefined, dropped };
}
