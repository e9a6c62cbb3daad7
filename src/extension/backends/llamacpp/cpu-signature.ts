// Our llama.cpp build is compiled for the CPU it was built on (native instruction sets).
// A VSIX carries it to other machines, where an instruction the CPU lacks would kill the
// process (SIGILL), and node-llama-cpp only tests a local build when the distro differs.
// So the build records the CPU it was made for, and the loader uses it only on a CPU that
// has every instruction-set flag the build machine had.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";

export const CPU_SIGNATURE_FILE = "stateful-chat-cpu.json";

export interface CpuSignature {
  readonly model: string;
  readonly flags: readonly string[];
}

function currentCpuSignature(): CpuSignature {
  let flags: string[];
  try {
    const line = readFileSync("/proc/cpuinfo", "utf8").split("\n").find((l) => /^flags\s*:/.test(l));
    flags = line ? line.split(":")[1].trim().split(/\s+/).sort() : [];
  } catch {
    flags = [];
  }
  return { model: cpus()[0]?.model ?? "unknown", flags };
}

export function writeCpuSignature(releaseDir: string): void {
  writeFileSync(join(releaseDir, CPU_SIGNATURE_FILE), `${JSON.stringify(currentCpuSignature())}\n`);
}

/** True when the build in `releaseDir` was made on a CPU whose flags this CPU all has. */
export function buildRunsOnThisCpu(releaseDir: string, current: CpuSignature = currentCpuSignature()): boolean {
  const file = join(releaseDir, CPU_SIGNATURE_FILE);
  if (!existsSync(file)) return false;
  try {
    const built = JSON.parse(readFileSync(file, "utf8")) as CpuSignature;
    if (built.flags.length === 0 || current.flags.length === 0) return built.model === current.model;
    const have = new Set(current.flags);
    return built.flags.every((flag) => have.has(flag));
  } catch {
    return false;
  }
}
