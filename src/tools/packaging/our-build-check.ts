// What a VSIX that carries our llama.cpp build (node-llama-cpp's llama/localBuilds) must hold:
// the portable build only, never the native one (-march=native fails on CPUs without the
// packaging machine's flags), so ggml's CPU backend as one library per ISA variant, each of the
// target's format and architecture (read from its header), the set covering the target's
// baseline variant (the one every CPU of the architecture loads).
import { readBinaryKind } from "./binary-header";
import { TARGET_SPECS, type VsixTarget } from "./targets";
import type { VsixEntry } from "./vsix-reader";

export const LOCAL_BUILDS = "node_modules/node-llama-cpp/llama/localBuilds/";

/** ggml's variant for the oldest CPU of each architecture (GGML_CPU_ALL_VARIANTS in ggml/src/CMakeLists.txt). */
export const BASELINE_CPU_VARIANT: Readonly<Partial<Record<VsixTarget, string>>> = {
  "linux-x64": "x64",
  "win32-x64": "x64",
  "linux-arm64": "armv8.0_1",
  "darwin-x64": "x64",
  "darwin-arm64": "apple_m1",
};

const VARIANT_FILE = /^Release\/(?:lib)?ggml-cpu-([^/]+)\.(?:so|dll|dylib)$/;

export interface OurBuildReport {
  readonly problems: readonly string[];
  /** Per build folder, the CPU variants it carries, for the log. */
  readonly builds: readonly { readonly folder: string; readonly variants: readonly string[] }[];
}

/**
 * `files` are the VSIX's entries under extension/, keyed by their path there. `forThisMachine`:
 * the VSIX is installed only on the machine that built it (`npm start`, the e2e suite), so a
 * native build is allowed in it.
 */
export function checkOurBuild(target: VsixTarget, files: ReadonlyMap<string, VsixEntry>, forThisMachine = false): OurBuildReport {
  const spec = TARGET_SPECS[target];
  const byFolder = new Map<string, Map<string, VsixEntry>>();
  for (const [name, entry] of files) {
    if (!name.startsWith(LOCAL_BUILDS)) continue;
    const [folder, ...rest] = name.slice(LOCAL_BUILDS.length).split("/");
    if (!folder || rest.length === 0) continue;
    const inside = byFolder.get(folder) ?? new Map<string, VsixEntry>();
    inside.set(rest.join("/"), entry);
    byFolder.set(folder, inside);
  }
  const problems: string[] = [];
  const builds: { folder: string; variants: string[] }[] = [];
  for (const [folder, inside] of byFolder) {
    const variants: string[] = [];
    for (const [rel, entry] of inside) {
      const variant = VARIANT_FILE.exec(rel)?.[1];
      if (!variant) continue;
      variants.push(variant);
      const kind = readBinaryKind(entry.head);
      if (!kind || kind.format !== spec.format || !kind.arches.includes(spec.arch)) {
        const found = kind ? `${kind.format} ${kind.arches.join("+")}` : "not a native binary";
        problems.push(`our build's ${folder}/${rel} is ${found}, ${target} needs ${spec.format} ${spec.arch}`);
      }
    }
    variants.sort();
    builds.push({ folder, variants });
    if (variants.length === 0) {
      if (!forThisMachine) problems.push(`our build ${folder} has no libggml-cpu-<variant> libraries: a native build, which fails on CPUs without the packaging machine's flags (ship build-llama --portable)`);
      continue;
    }
    const baseline = BASELINE_CPU_VARIANT[target];
    if (baseline && !variants.includes(baseline)) problems.push(`our build ${folder} lacks the baseline CPU variant ${baseline} (has ${variants.join(", ")})`);
  }
  return { problems, builds };
}
