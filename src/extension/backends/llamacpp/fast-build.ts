// Where our threadpool build of llama.cpp lives (node-llama-cpp's localBuilds folder, named
// after the cmake options) and whether this process should load it. Shared by the loader
// and by the build tool (src/tools/llama-build/).

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { LLAMA_CPP_SDIST } from "./llama-cpp-release";
import { buildRunsOnThisCpu } from "./cpu-signature";

/**
 * ggml's AMX matmul (compiled by GGML_NATIVE on Sapphire Rapids and later) dies with SIGILL at
 * its first tile instruction on the machines we test on (a VM, Linux 6.18): upstream
 * llama-server built with GGML_NATIVE crashes the same way on the first prompt, although the
 * kernel grants AMX (arch_prctl ARCH_REQ_XCOMP_PERM returns 0) and a small C program runs the
 * same instructions fine. Every native build here (ours, the peer llama-server, the op test)
 * leaves AMX out; ggml then takes its AVX-512 VNNI path; other CPUs are unaffected. GCC and
 * clang keep an explicit -mno-* over what -march=native turns on, in any order.
 */
export const NO_AMX_FLAGS = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16";

/**
 * The cmake options of our build. node-llama-cpp looks a local build up by its options,
 * so the loader asks for exactly these. OpenMP stays off: the patched addon attaches its
 * own persistent ggml threadpool instead. STATEFUL_CHAT_LLAMA_CPP (unused by cmake) names
 * the llama.cpp source the build came from, so that a build from another source (such as
 * the older one node-llama-cpp bundles) is never taken for ours. STATEFUL_CHAT_PATCHES
 * (unused by cmake too) names the patch set, so a build made before a patch was added is not
 * taken for ours either: its folder name differs, and the next build-llama rebuilds. (A change
 * inside a patch is caught by build-llama's build key, a hash of every patch's text.)
 */
export const FAST_BUILD_CMAKE_OPTIONS: Readonly<Record<string, string>> = {
  GGML_OPENMP: "OFF",
  // Without AMX (NO_AMX_FLAGS). The per-configuration flags, because cmake-js sets
  // CMAKE_CXX_FLAGS itself (-DBUILDING_NODE_EXTENSION) and would replace ours.
  CMAKE_C_FLAGS_RELEASE: `-O3 -DNDEBUG ${NO_AMX_FLAGS}`,
  CMAKE_CXX_FLAGS_RELEASE: `-O3 -DNDEBUG ${NO_AMX_FLAGS}`,
  STATEFUL_CHAT_LLAMA_CPP: LLAMA_CPP_SDIST.version,
  STATEFUL_CHAT_PATCHES: "threadpool.generate.verify.kv-range.batch-threads.fa-grouped",
};

function isCompleteBuild(folder: string): boolean {
  return existsSync(join(folder, "buildDone.status")) && existsSync(join(folder, "Release", "llama-addon.node"));
}

/** The name of the folder under `localBuilds` that holds a complete build with our options. */
export function findFastBuild(localBuilds: string): string | undefined {
  if (!existsSync(localBuilds)) return undefined;
  const wanted = Object.entries(FAST_BUILD_CMAKE_OPTIONS);
  for (const name of readdirSync(localBuilds)) {
    const folder = join(localBuilds, name);
    if (!isCompleteBuild(folder)) continue;
    try {
      const metadata = JSON.parse(readFileSync(join(folder, "Release", "_nlcBuildMetadata.json"), "utf8")) as {
        buildOptions?: { gpu?: unknown; customCmakeOptions?: Record<string, string> };
      };
      const options = metadata.buildOptions?.customCmakeOptions ?? {};
      if (metadata.buildOptions?.gpu === false && Object.keys(options).length === wanted.length && wanted.every(([k, v]) => options[k] === v)) {
        return name;
      }
    } catch {
      // unreadable metadata: not ours
    }
  }
  return undefined;
}

/** node-llama-cpp's package folder, found by walking up from this file (bundle or source). */
export function nodeLlamaCppPackageDir(from: string = __dirname): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", "node-llama-cpp");
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** node-llama-cpp's localBuilds folder (where our build is put). */
function localBuildsDir(from: string = __dirname): string | undefined {
  const packageDir = nodeLlamaCppPackageDir(from);
  return packageDir ? join(packageDir, "llama", "localBuilds") : undefined;
}

/**
 * The cmake options to ask node-llama-cpp for: ours when our build is here and fits this CPU.
 * STATEFUL_CHAT_LLAMA_BUILD=prebuilt loads node-llama-cpp's prebuilt binary instead (what
 * macOS, Windows and machines without a compiler run), so the bench can measure that path.
 */
export function cmakeOptionsToLoad(): Record<string, string> | undefined {
  if (process.env.STATEFUL_CHAT_LLAMA_BUILD === "prebuilt") return undefined;
  const builds = localBuildsDir();
  const name = builds ? findFastBuild(builds) : undefined;
  if (!builds || !name || !buildRunsOnThisCpu(join(builds, name, "Release"))) return undefined;
  return { ...FAST_BUILD_CMAKE_OPTIONS };
}
