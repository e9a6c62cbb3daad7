// node-llama-cpp's CUDA packages fetched on first use into the extension's global storage:
// `<storage>/gpu-binaries/<@scope+name>@<version>/`, the tarball downloaded resumably beside
// it (models/download.ts: `.part` kept and continued), verified against the lock's sha512
// before it is unpacked, unpacked aside and renamed into place with a marker, so nothing
// unverified or half-unpacked is ever found. No vscode: the shell shows the progress.
//
// How node-llama-cpp finds it: a prebuilt is looked up only by a bare
// `import("@node-llama-cpp/linux-x64-cuda")` (and `-cuda-ext`) from node-llama-cpp's own
// files (dist/bindings/utils/compileLLamaCpp.js, getPrebuiltBinariesPackageDirectoryForBuildOptions),
// taking the package's `getBinsDir()` when its version equals node-llama-cpp's; no option
// or environment variable names another folder, and NODE_PATH does not apply to ESM. Node's
// resolver looks in the `node_modules` of every folder above the importing file, node-llama-cpp's
// own `node_modules` first, so a link there (a symlink; on Windows a junction, which needs no
// privilege) to the unpacked package is found exactly as an npm-installed optional dependency
// would be. Node resolves the link to its real path, so the package's `dist/index.js` reports
// its `bins/` in global storage. The link serves every process that imports this node-llama-cpp:
// the GPU probe's children and the engine process. An update of the extension replaces its
// folder and the link with it; the next use links the stored package again without a download.

import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { extract } from "tar";
import { CancelledError } from "../core/errors";
import { downloadFile, DownloadError, type DownloadProgress } from "../models/download";
import { ChecksumMismatchError } from "../models/download-errors";
import type { GpuFetchFailure } from "./gpu-packages";
import { sha512HexOf, type NpmPackagePin } from "./npm-package";

/** A fetch that ended without a usable package, with the reason the notice gives. */
export class GpuPackageError extends Error {
  constructor(
    readonly failure: GpuFetchFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "GpuPackageError";
  }
}

const MARKER = ".verified-integrity";

export function gpuBinariesDir(storage: string): string {
  return join(storage, "gpu-binaries");
}

export function storedPackageDir(storage: string, pin: NpmPackagePin): string {
  return join(gpuBinariesDir(storage), `${pin.name.replace("/", "+")}@${pin.version}`);
}

/** The unpacked package when a tarball with the pin's integrity was unpacked completely; else undefined. */
export function storedGpuPackage(storage: string, pin: NpmPackagePin): string | undefined {
  const dir = storedPackageDir(storage, pin);
  try {
    return readFileSync(join(dir, MARKER), "utf8") === pin.integrity ? dir : undefined;
  } catch {
    return undefined;
  }
}

export interface FetchGpuPackageOptions {
  readonly onProgress?: (progress: DownloadProgress) => void;
  readonly signal?: AbortSignal;
}

/** The pin's package in global storage: already there, or downloaded, verified and unpacked now. */
export async function fetchGpuPackage(storage: string, pin: NpmPackagePin, options: FetchGpuPackageOptions = {}): Promise<string> {
  const stored = storedGpuPackage(storage, pin);
  if (stored) return stored;
  const sha512 = sha512HexOf(pin.integrity);
  if (!sha512) throw new GpuPackageError("refused", `${pin.name}@${pin.version} has no sha512 integrity to check it against`);
  const tarball = join(gpuBinariesDir(storage), "downloads", `${pin.name.replace("/", "+")}-${pin.version}.tgz`);
  try {
    // Renamed into place only once its sha512 matches; a mismatch deletes the partial.
    await downloadFile(pin.tarballUrl, tarball, { sha512, onProgress: options.onProgress, signal: options.signal });
  } catch (error) {
    throw asGpuPackageError(pin, error);
  }
  const dir = storedPackageDir(storage, pin);
  const unpacking = `${dir}.unpacking`;
  try {
    rmSync(unpacking, { recursive: true, force: true });
    mkdirSync(unpacking, { recursive: true });
    // npm tarballs hold one top folder, `package/`. tar refuses absolute paths and `..`.
    await extract({ file: tarball, cwd: unpacking, strip: 1 });
    const manifest = JSON.parse(readFileSync(join(unpacking, "package.json"), "utf8")) as { name?: unknown; version?: unknown };
    if (manifest.name !== pin.name || manifest.version !== pin.version) {
      throw new GpuPackageError("refused", `the tarball holds ${String(manifest.name)}@${String(manifest.version)}, not ${pin.name}@${pin.version}`);
    }
    writeFileSync(join(unpacking, MARKER), pin.integrity);
    rmSync(dir, { recursive: true, force: true });
    renameSync(unpacking, dir);
  } catch (error) {
    rmSync(unpacking, { recursive: true, force: true });
    throw error instanceof GpuPackageError ? error : new GpuPackageError("failed", `unpacking ${pin.name}@${pin.version} failed: ${messageOf(error)}`, { cause: error });
  } finally {
    await rm(tarball, { force: true });
  }
  return dir;
}

/** The failure a download error stands for: cancelled, offline (no connection), refused (integrity) or failed. */
export function asGpuPackageError(pin: NpmPackagePin, error: unknown): GpuPackageError {
  if (error instanceof GpuPackageError) return error;
  const what = `${pin.name}@${pin.version}`;
  if (error instanceof CancelledError) return new GpuPackageError("cancelled", `the download of ${what} was cancelled; the part received is kept`, { cause: error });
  if (error instanceof ChecksumMismatchError) {
    return new GpuPackageError("refused", `${what} from ${pin.tarballUrl} does not match package-lock.json's sha512; nothing was kept`, { cause: error });
  }
  if (error instanceof DownloadError && error.message.startsWith("Cannot reach")) return new GpuPackageError("offline", error.message, { cause: error });
  return new GpuPackageError("failed", messageOf(error), { cause: error });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The folder and version of `name` as Node would resolve it from `fromDir` (the node_modules of each folder above). */
export function resolvablePackage(fromDir: string, name: string): { dir: string; version?: string } | undefined {
  for (let dir = resolve(fromDir); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) {
      try {
        const { version } = JSON.parse(readFileSync(join(candidate, "package.json"), "utf8")) as { version?: unknown };
        return { dir: candidate, version: typeof version === "string" ? version : undefined };
      } catch {
        return { dir: candidate };
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/** Links the stored package into node-llama-cpp's own node_modules, replacing only an older link. */
export function linkForNodeLlamaCpp(nodeLlamaCppDir: string, name: string, packageDir: string): void {
  const link = join(nodeLlamaCppDir, "node_modules", name);
  let existing: string | undefined;
  try {
    existing = lstatSync(link).isSymbolicLink() ? readlinkSync(link) : "not a link";
  } catch {
    existing = undefined;
  }
  if (existing === "not a link") throw new GpuPackageError("failed", `${link} is a folder, not a link; it is left alone`);
  if (existing !== undefined && resolve(dirname(link), existing) === resolve(packageDir)) return;
  if (existing !== undefined) rmSync(link, { force: true });
  try {
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(resolve(packageDir), link, "junction");
  } catch (error) {
    throw new GpuPackageError("failed", `cannot link ${name} for node-llama-cpp at ${link}: ${messageOf(error)}`, { cause: error });
  }
}
