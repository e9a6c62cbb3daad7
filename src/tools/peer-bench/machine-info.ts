// What every result records: the machine and the builds of both sides.

import { readFileSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";

export interface MachineInfo {
  readonly cores: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly platform: string;
  readonly node: string;
}

export function machineInfo(): MachineInfo {
  return {
    cores: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    platform: `${process.platform}-${process.arch}`,
    node: process.version,
  };
}

/** CPU time of this process and its children so far, in ms (Linux /proc; 0 elsewhere). */
export function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100;
  } catch {
    return 0;
  }
}
