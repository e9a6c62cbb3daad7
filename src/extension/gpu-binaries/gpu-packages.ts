// Which of node-llama-cpp's GPU packages this machine needs fetched before the CUDA binary
// can be probed, and what the user is told when the fetch fails. Pure: the shell passes in
// the platform, what node-llama-cpp detects (an NVIDIA driver: `getLlamaGpuTypes("supported")`
// lists `cuda`), the pins the VSIX carries (gpu-binaries.json, written at packaging from
// package-lock.json) and which packages are already there.
//
// The CUDA prebuilts are too large to ship in a VSIX (linux-x64-cuda ~181 MB, its -ext
// companion ~357 MB, win32-x64 likewise), so they are fetched on first use; Metal and Vulkan
// ship in their targets' VSIXs and are never fetched.

import type { GpuChoice } from "../core/engine-options";
import type { NpmPackagePin } from "./npm-package";

/** The command that tries a refused or failed GPU download again (package.json contributes it). */
export const RETRY_GPU_DOWNLOAD_COMMAND = "statefulChat.retryGpuDownload";
const RETRY_TITLE = "Stateful Chat: Retry GPU Download";

/** node-llama-cpp's CUDA packages for a platform: the binary, then the -ext package with CUDA's own libraries. */
export function cudaPackagesFor(platform: string, arch: string): readonly string[] {
  if (arch !== "x64") return [];
  if (platform === "linux") return ["@node-llama-cpp/linux-x64-cuda", "@node-llama-cpp/linux-x64-cuda-ext"];
  if (platform === "win32") return ["@node-llama-cpp/win-x64-cuda", "@node-llama-cpp/win-x64-cuda-ext"];
  return [];
}

export interface GpuFetchInput {
  readonly choice: GpuChoice;
  readonly platform: string;
  readonly arch: string;
  /** node-llama-cpp found an NVIDIA driver here. */
  readonly nvidiaDriver: boolean;
  /** The pins the VSIX carries (none when it carries no table, e.g. run from source). */
  readonly pins: readonly NpmPackagePin[];
  /** A package node-llama-cpp can already load at its own version (in the VSIX, node_modules or global storage). */
  readonly present: (name: string) => boolean;
}

export type GpuFetchDecision =
  | { readonly kind: "none"; readonly reason: string }
  | { readonly kind: "fetch"; readonly pins: readonly NpmPackagePin[] }
  /** CUDA is wanted and missing, but nothing says what to fetch: the CPU serves, with this notice. */
  | { readonly kind: "unavailable"; readonly notice: string };

export function decideGpuFetch(input: GpuFetchInput): GpuFetchDecision {
  if (input.choice !== "auto" && input.choice !== "cuda") return { kind: "none", reason: `gpu is ${input.choice}` };
  const needed = cudaPackagesFor(input.platform, input.arch);
  if (needed.length === 0) return { kind: "none", reason: `no CUDA binary for ${input.platform}-${input.arch}` };
  if (!input.nvidiaDriver) return { kind: "none", reason: "no NVIDIA driver found" };
  const missing = needed.filter((name) => !input.present(name));
  if (missing.length === 0) return { kind: "none", reason: "the CUDA binaries are present" };
  const pinOf = (name: string) => input.pins.find((pin) => pin.name === name);
  // node-llama-cpp loads the binary without its -ext companion (then CUDA's libraries must be
  // installed), so only the binary itself must be pinned.
  if (missing.includes(needed[0]!) && !pinOf(needed[0]!)) {
    return { kind: "unavailable", notice: `GPU not used: the CUDA binary (${needed[0]}) is not installed and this installation does not say which version to fetch; running on the CPU.` };
  }
  const pins = missing.map(pinOf).filter((pin): pin is NpmPackagePin => pin !== undefined);
  return pins.length === 0 ? { kind: "none", reason: "the CUDA binary is present" } : { kind: "fetch", pins };
}

/** Why a fetch ended without a binary, in the words of the one notice. */
export type GpuFetchFailure = "cancelled" | "offline" | "refused" | "failed";

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

/** The one notice: why the CPU serves, and how to try again. */
export function gpuFetchNotice(failure: GpuFetchFailure, detail: string): string {
  const why = {
    cancelled: "the CUDA binary download was cancelled",
    offline: `the npm registry could not be reached (${detail})`,
    refused: `the downloaded CUDA binary was refused (${detail})`,
    failed: `the CUDA binary download failed (${detail})`,
  }[failure];
  return `GPU not used: ${why}; running on the CPU. To try again, run "${RETRY_TITLE}" from the Command Palette.`;
}
