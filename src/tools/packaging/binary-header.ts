// Reads what a native binary is built for from its first bytes: ELF (e_machine), Mach-O (cputype,
// or each slice of a universal binary) and PE (the COFF Machine field behind the DOS stub).
// Anything else (scripts, data, Metal libraries) is not a native binary: undefined.
import type { BinaryFormat, CpuArch } from "./targets";

export interface BinaryKind {
  readonly format: BinaryFormat;
  /** One entry, or one per slice of a universal Mach-O binary. */
  readonly arches: readonly CpuArch[];
}

/** Enough of a file to read any of these headers (PE's e_lfanew is far below this in practice). */
export const HEADER_BYTES = 4096;

const ELF_MACHINES: ReadonlyMap<number, CpuArch> = new Map([
  [0x03, "ia32"],
  [0x28, "arm"],
  [0x3e, "x64"],
  [0xb7, "arm64"],
  [0xf3, "riscv64"],
]);
const MACHO_CPU_TYPES: ReadonlyMap<number, CpuArch> = new Map([
  [0x00000007, "ia32"],
  [0x01000007, "x64"],
  [0x0000000c, "arm"],
  [0x0100000c, "arm64"],
]);
const PE_MACHINES: ReadonlyMap<number, CpuArch> = new Map([
  [0x014c, "ia32"],
  [0x01c4, "arm"],
  [0x8664, "x64"],
  [0xaa64, "arm64"],
]);

export function readBinaryKind(header: Buffer): BinaryKind | undefined {
  return readElf(header) ?? readMachO(header) ?? readPe(header);
}

function readElf(b: Buffer): BinaryKind | undefined {
  if (b.length < 20 || b.readUInt32BE(0) !== 0x7f454c46) return undefined;
  // EI_DATA (byte 5): 1 little-endian, 2 big-endian; e_machine is a half-word at 18.
  const machine = b[5] === 2 ? b.readUInt16BE(18) : b.readUInt16LE(18);
  return { format: "elf", arches: [ELF_MACHINES.get(machine) ?? "other"] };
}

function readMachO(b: Buffer): BinaryKind | undefined {
  if (b.length < 8) return undefined;
  const magicLE = b.readUInt32LE(0);
  // Thin binaries: MH_MAGIC / MH_MAGIC_64 as written on little-endian CPUs; cputype follows.
  if (magicLE === 0xfeedface || magicLE === 0xfeedfacf) return { format: "mach-o", arches: [machoArch(b.readUInt32LE(4))] };
  // Universal binaries: FAT_MAGIC (20-byte entries) or FAT_MAGIC_64 (32-byte entries), big-endian.
  // Java class files share 0xcafebabe; their "count" (the minor version) is never a small slice count.
  const magicBE = b.readUInt32BE(0);
  if (magicBE !== 0xcafebabe && magicBE !== 0xcafebabf) return undefined;
  const count = b.readUInt32BE(4);
  const entry = magicBE === 0xcafebabe ? 20 : 32;
  if (count === 0 || count > 16 || b.length < 8 + count * entry) return undefined;
  const arches = Array.from({ length: count }, (_, i) => machoArch(b.readUInt32BE(8 + i * entry)));
  return { format: "mach-o", arches };
}

function machoArch(cpuType: number): CpuArch {
  return MACHO_CPU_TYPES.get(cpuType) ?? "other";
}

function readPe(b: Buffer): BinaryKind | undefined {
  if (b.length < 0x40 || b.readUInt16LE(0) !== 0x5a4d) return undefined;
  const peOffset = b.readUInt32LE(0x3c);
  if (peOffset + 6 > b.length || b.readUInt32BE(peOffset) !== 0x50450000) return undefined;
  return { format: "pe", arches: [PE_MACHINES.get(b.readUInt16LE(peOffset + 4)) ?? "other"] };
}
