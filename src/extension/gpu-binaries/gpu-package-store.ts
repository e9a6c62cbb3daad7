// node-llama-cpp's CUDA packages fetched on first use into the extension's global storage:
// `<storage>/gpu-binaries/<@scope+name>@<version>/`, the tarball downloaded resumably beside
// it (models/download.ts: `.part` kept and continued), verified against the lock's sha512
// before it is unpacked, unpacked aside and renamed into place with a marker, so nothing
// unverified or half-unpacked is ever found. No vscode: the shell shows the progress.
//
// node-llama-cpp finds the package through node-resolution.ts's link.

import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { extract } from "tar";
import { CancelledError } from "../core/errors";
import { downloadFile, DownloadError, type DownloadProgress } from "../models/download";
import { ChecksumMismatchError } from "../models/download-errors";
import { GpuPackageError } from "./gpu-packages";
import { sha512HexOf, type NpmPackagePin } from "./npm-package";

const MARKER = ".verified-integrity";

function gpuBinariesDir(storage: string): string {
  return join(storage, "gpu-binaries");
}

function storedPackageDir(storage: string, pin: NpmPackagePin): string {
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
function asGpuPackageError(pin: NpmPackagePin, error: unknown): GpuPackageError {
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
