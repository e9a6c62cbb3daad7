// Which of ggml's CPU backend libraries this process loaded. A portable build (GGML_BACKEND_DL
// with GGML_CPU_ALL_VARIANTS) carries one libggml-cpu-<variant>.so per ISA level and ggml maps
// the best one this CPU supports; the model details name it. Linux only (/proc/self/maps).

import { readFileSync } from "node:fs";

const VARIANT_LIBRARY = /libggml-cpu-([A-Za-z0-9_.]+?)\.(?:so|dylib|dll)\b/;

/** The variant named by the first libggml-cpu-<variant> library in a /proc/<pid>/maps text. */
export function cpuVariantInMaps(maps: string): string | undefined {
  for (const line of maps.split("\n")) {
    const match = VARIANT_LIBRARY.exec(line);
    if (match) return match[1];
  }
  return undefined;
}

/** The CPU variant this process runs, when it loaded one (Linux; undefined elsewhere). */
export function loadedCpuVariant(): string | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    return cpuVariantInMaps(readFileSync("/proc/self/maps", "utf8"));
  } catch {
    return undefined;
  }
}
