// The VSIX targets we publish (vsce's `--target` names, which are VS Code's platform ids) and
// what each one carries. One table: the packager stages from it and check:vsix asserts it.

export const VSIX_TARGETS = ["darwin-arm64", "darwin-x64", "linux-x64", "linux-arm64", "win32-x64", "win32-arm64"] as const;
export type VsixTarget = (typeof VSIX_TARGETS)[number];

export function isVsixTarget(value: string): value is VsixTarget {
  return (VSIX_TARGETS as readonly string[]).includes(value);
}

/** Executable formats, as read from a binary's header (binary-header.ts). */
export type BinaryFormat = "elf" | "mach-o" | "pe";
/** CPU architectures in Node's naming (process.arch). */
export type CpuArch = "x64" | "arm64" | "ia32" | "arm" | "riscv64" | "other";

export interface TargetSpec {
  /** node-llama-cpp's prebuilt packages (`@node-llama-cpp/<name>`) that load on this target:
   * the ones its getLlama() imports for this platform and arch (dist/bindings/utils/
   * compileLLamaCpp.js). CUDA (181 + 357 MB) is left out: too large to ship in a VSIX. */
  readonly prebuilts: readonly string[];
  /** node-llama-cpp's packages too large to ship, fetched by the extension on first use when
   * `statefulChat.gpu` finds an NVIDIA device (src/extension/gpu-binaries/): the VSIX carries
   * their lock pins in out/gpu-binaries.json. */
  readonly fetchedOnUse: readonly string[];
  readonly format: BinaryFormat;
  readonly arch: CpuArch;
  /** Largest VSIX we accept, in MB (1e6 bytes): the size measured on 2026-12-05 (in the comment
   * beside each) plus ~20% headroom, so a dependency that grows by accident is noticed. */
  readonly budgetMegabytes: number;
}

export const TARGET_SPECS: Readonly<Record<VsixTarget, TargetSpec>> = {
  // Apple Silicon: Metal. node-llama-cpp has no CPU-only arm64 mac package; Metal is always there.
  "darwin-arm64": { prebuilts: ["mac-arm64-metal"], fetchedOnUse: [], format: "mach-o", arch: "arm64", budgetMegabytes: 16 }, // 7.4 MB + the Core ML addon + our portable build (the release job's, 3 apple_m* variants; not measured yet)
  // Intel Macs: node-llama-cpp loads its CPU build there (gpu: false), never Metal.
  "darwin-x64": { prebuilts: ["mac-x64"], fetchedOnUse: [], format: "mach-o", arch: "x64", budgetMegabytes: 17 }, // 13.3 MB + the Core ML addon
  "linux-x64": { prebuilts: ["linux-x64", "linux-x64-vulkan"], fetchedOnUse: ["linux-x64-cuda", "linux-x64-cuda-ext"], format: "elf", arch: "x64", budgetMegabytes: 60 }, // 40.6 MB + our llama.cpp build, when built here
  "linux-arm64": { prebuilts: ["linux-arm64"], fetchedOnUse: [], format: "elf", arch: "arm64", budgetMegabytes: 22 }, // 9.7 MB + our portable build (the release job's, 8 armv8/9 variants; not measured yet)
  "win32-x64": { prebuilts: ["win-x64", "win-x64-vulkan"], fetchedOnUse: ["win-x64-cuda", "win-x64-cuda-ext"], format: "pe", arch: "x64", budgetMegabytes: 58 }, // 39.0 MB + our portable build (the release job's, MSVC's 9 x86-64 variants; not measured yet)
  "win32-arm64": { prebuilts: ["win-arm64"], fetchedOnUse: [], format: "pe", arch: "arm64", budgetMegabytes: 9 }, // 7.1 MB
};

/** The target of the machine running this (the VSIX `npm run package` makes without --target). */
export function hostTarget(): VsixTarget {
  const target = `${process.platform}-${process.arch}`;
  if (!isVsixTarget(target)) throw new Error(`no VSIX target for this machine (${target}); pass --target (one of ${VSIX_TARGETS.join(", ")})`);
  return target;
}
