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
 * The cmake options of our build on a platform. node-llama-cpp looks a local build up by its
 * options, so the loader asks for exactly these. OpenMP stays off: the patched addon attaches
 * its own persistent ggml threadpool instead. STATEFUL_CHAT_LLAMA_CPP (unused by cmake) names
 * the llama.cpp source the build came from, so that a build from another source (such as
 * the older one node-llama-cpp bundles) is never taken for ours. STATEFUL_CHAT_PATCHES
 * (unused by cmake too) names the patch set, so a build made before a patch was added is not
 * taken for ours either: its folder name differs, and the next build-llama rebuilds. (A change
 * inside a patch is caught by build-llama's build key, a hash of every patch's text.)
 * AMX is left out (NO_AMX_FLAGS) where the compiler is GCC or clang on x86-64; arm64 has none,
 * and MSVC (Windows) neither takes those flags nor builds ggml's AMX code, so there cmake's own
 * Release flags stand.
 */
export function fastBuildCmakeOptions(platform: NodeJS.Platform = process.platform, arch: string = process.arch): Readonly<Record<string, string>> {
  const leavesOutAmx = arch === "x64" && platform !== "win32";
  return {
    GGML_OPENMP: "OFF",
    // The per-configuration flags, because cmake-js sets CMAKE_CXX_FLAGS itself
    // (-DBUILDING_NODE_EXTENSION) and would replace ours.
    ...(leavesOutAmx ? { CMAKE_C_FLAGS_RELEASE: `-O3 -DNDEBUG ${NO_AMX_FLAGS}`, CMAKE_CXX_FLAGS_RELEASE: `-O3 -DNDEBUG ${NO_AMX_FLAGS}` } : {}),
    STATEFUL_CHAT_LLAMA_CPP: LLAMA_CPP_SDIST.version,
    STATEFUL_CHAT_PATCHES: "threadpool.generate.verify.kv-range.batch-threads.fa-grouped",
  };
}

/**
 * The portable variant of our build, the one a VSIX ships: the same patches and options, but
 * ggml's CPU backend as one shared library per ISA level (x86-64: libggml-cpu-x64, -sse42, …,
 * -zen4; arm64 Linux: armv8.0_1 …; Apple silicon: apple_m1 …), the best one this CPU supports
 * picked by ggml at load (GGML_BACKEND_DL with GGML_CPU_ALL_VARIANTS), as node-llama-cpp's
 * prebuilt is built. No CPU signature applies.
 */
export function portableBuildCmakeOptions(platform: NodeJS.Platform = process.platform, arch: string = process.arch): Readonly<Record<string, string>> {
  return { ...fastBuildCmakeOptions(platform, arch), GGML_NATIVE: "OFF", GGML_BACKEND_DL: "ON", GGML_CPU_ALL_VARIANTS: "ON" };
}

/** This platform's options of our build (native, -march=native). */
export const FAST_BUILD_CMAKE_OPTIONS = fastBuildCmakeOptions();
/** This platform's options of our portable build. */
export const PORTABLE_BUILD_CMAKE_OPTIONS = portableBuildCmakeOptions();

/**
 * Where ggml builds its CPU backend in ISA variants (GGML_CPU_ALL_VARIANTS in
 * ggml/src/CMakeLists.txt): x86-64 on every OS, arm64 on Linux and macOS (Windows on arm64
 * is refused by ggml's cmake). Elsewhere there is no portable build of ours: the prebuilt serves.
 */
export function portableBuildSupported(platform: NodeJS.Platform = process.platform, arch: string = process.arch): boolean {
  if (arch === "x64") return platform === "linux" || platform === "darwin" || platform === "win32";
  if (arch === "arm64") return platform === "linux" || platform === "darwin";
  return false;
}

/** Which llama.cpp binary serves: ours for this CPU, ours in every ISA variant, or node-llama-cpp's. */
export type LlamaBuildKind = "native" | "portable" | "prebuilt";

export function buildOptionsOf(kind: "native" | "portable"): Readonly<Record<string, string>> {
  return kind === "portable" ? PORTABLE_BUILD_CMAKE_OPTIONS : FAST_BUILD_CMAKE_OPTIONS;
}

/** What the model details say about the binary serving. */
export function llamaBuildLabel(kind: LlamaBuildKind): string {
  if (kind === "native") return "our build, native";
  if (kind === "portable") return "our build, portable CPU variants";
  return "node-llama-cpp prebuilt";
}

function isCompleteBuild(folder: string): boolean {
  return existsSync(join(folder, "buildDone.status")) && existsSync(join(folder, "Release", "llama-addon.node"));
}

/** The name of the folder under `localBuilds` that holds a complete build with these options (by default the native build's). */
export function findFastBuild(localBuilds: string, options: Readonly<Record<string, string>> = FAST_BUILD_CMAKE_OPTIONS): string | undefined {
  if (!existsSync(localBuilds)) return undefined;
  const wanted = Object.entries(options);
  for (const name of readdirSync(localBuilds)) {
    const folder = join(localBuilds, name);
    if (!isCompleteBuild(folder)) continue;
    try {
      const metadata = JSON.parse(readFileSync(join(folder, "Release", "_nlcBuildMetadata.json"), "utf8")) as {
        buildOptions?: { gpu?: unknown; customCmakeOptions?: Record<string, string> };
      };
      const built = metadata.buildOptions?.customCmakeOptions ?? {};
      if (metadata.buildOptions?.gpu === false && Object.keys(built).length === wanted.length && wanted.every(([k, v]) => built[k] === v)) {
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
 * Which of our builds to load: the native one when it is here and fits this CPU (a dev checkout),
 * else the portable one when it is here (a VSIX; ggml picks the CPU variant at load), else none
 * (node-llama-cpp's prebuilt). STATEFUL_CHAT_LLAMA_BUILD=prebuilt loads the prebuilt (what a
 * target without a build of ours runs), =portable the portable build, so the bench and the
 * packaging check can measure either path.
 */
export function fastBuildToLoad(): "native" | "portable" | undefined {
  const asked = process.env.STATEFUL_CHAT_LLAMA_BUILD;
  if (asked === "prebuilt") return undefined;
  const builds = localBuildsDir();
  if (!builds) return undefined;
  const native = asked === "portable" ? undefined : findFastBuild(builds);
  if (native && buildRunsOnThisCpu(join(builds, native, "Release"))) return "native";
  return findFastBuild(builds, PORTABLE_BUILD_CMAKE_OPTIONS) ? "portable" : undefined;
}
