// The whole first-use step below the shell: decide (gpu-packages.ts), fetch, verify and
// unpack each missing package into global storage (gpu-package-store.ts), and link it where
// node-llama-cpp looks. The shell calls it with a progress callback and a cancel signal, and
// shows the notice when it ends in a GpuPackageError.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { GpuChoice } from "../core/engine-options";
import { decideGpuFetch, gpuFetchNotice, GpuPackageError, type GpuFetchDecision } from "./gpu-packages";
import { fetchGpuPackage } from "./gpu-package-store";
import { linkForNodeLlamaCpp, resolvablePackage } from "./node-resolution";
import { isNpmPackagePin, type NpmPackagePin } from "./npm-package";

/** The file packaging writes beside the bundles: the pins of the GPU packages the VSIX leaves out. */
export const GPU_PINS_FILE = "gpu-binaries.json";

/** The pins in `<extension>/out/gpu-binaries.json`; none when the file is missing or malformed. */
export function readGpuPins(file: string): NpmPackagePin[] {
  try {
    const value: unknown = JSON.parse(readFileSync(file, "utf8"));
    return Array.isArray(value) ? value.filter(isNpmPackagePin) : [];
  } catch {
    return [];
  }
}

export interface GpuPackagesRequest {
  readonly choice: GpuChoice;
  readonly nvidiaDriver: boolean;
  readonly pins: readonly NpmPackagePin[];
  /** The extension's global storage folder. */
  readonly storage: string;
  /** The node-llama-cpp package folder the engine process imports. */
  readonly nodeLlamaCppDir: string;
  readonly platform?: string;
  readonly arch?: string;
}

export interface GpuFetchProgress {
  readonly name: string;
  /** 1-based, of `count`. */
  readonly index: number;
  readonly count: number;
  readonly receivedBytes: number;
  readonly totalBytes?: number;
}

/** What the shell does: nothing, or show progress while `provideGpuPackages` runs. */
export function gpuPackagesDecision(request: GpuPackagesRequest): GpuFetchDecision {
  const nodeLlamaCppVersion = versionOf(request.nodeLlamaCppDir);
  return decideGpuFetch({
    choice: request.choice,
    platform: request.platform ?? process.platform,
    arch: request.arch ?? process.arch,
    nvidiaDriver: request.nvidiaDriver,
    pins: request.pins,
    // node-llama-cpp takes a prebuilt package only at its own version.
    present: (name) => {
      const found = resolvablePackage(request.nodeLlamaCppDir, name)?.version;
      return found !== undefined && found === (request.pins.find((p) => p.name === name)?.version ?? nodeLlamaCppVersion);
    },
  });
}

/** Fetches (or finds stored) and links every pin in turn; throws a GpuPackageError whose `notice` the shell shows. */
export async function provideGpuPackages(
  request: GpuPackagesRequest,
  pins: readonly NpmPackagePin[],
  options: { onProgress?: (progress: GpuFetchProgress) => void; signal?: AbortSignal } = {},
): Promise<void> {
  for (const [i, pin] of pins.entries()) {
    const report = (p: { receivedBytes: number; totalBytes?: number }) =>
      options.onProgress?.({ name: pin.name, index: i + 1, count: pins.length, receivedBytes: p.receivedBytes, totalBytes: p.totalBytes });
    const dir = await fetchGpuPackage(request.storage, pin, { onProgress: report, signal: options.signal });
    linkForNodeLlamaCpp(request.nodeLlamaCppDir, pin.name, dir);
  }
}

/** The notice for an error `provideGpuPackages` threw. */
export function noticeOf(error: unknown): string {
  if (error instanceof GpuPackageError) return gpuFetchNotice(error.failure, error.message);
  return gpuFetchNotice("failed", error instanceof Error ? error.message : String(error));
}

function versionOf(packageDir: string): string | undefined {
  try {
    const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version?: unknown };
    return typeof version === "string" ? version : undefined;
  } catch {
    return undefined;
  }
}
