// binary-header.ts on small synthetic headers: each format and architecture check:vsix relies
// on, universal Mach-O binaries, and files that only look similar (scripts, Java classes,
// a DOS stub without a PE header) read as no native binary at all.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readBinaryKind } from "../../src/tools/packaging/binary-header";

function elf(machine: number, bigEndian = false): Buffer {
  const b = Buffer.alloc(64);
  b.set([0x7f, 0x45, 0x4c, 0x46, 2, bigEndian ? 2 : 1, 1], 0);
  if (bigEndian) b.writeUInt16BE(machine, 18);
  else b.writeUInt16LE(machine, 18);
  return b;
}

function machO(cpuType: number): Buffer {
  const b = Buffer.alloc(32);
  b.writeUInt32LE(0xfeedfacf, 0);
  b.writeUInt32LE(cpuType, 4);
  return b;
}

function universal(cpuTypes: readonly number[]): Buffer {
  const b = Buffer.alloc(8 + 20 * cpuTypes.length);
  b.writeUInt32BE(0xcafebabe, 0);
  b.writeUInt32BE(cpuTypes.length, 4);
  cpuTypes.forEach((cpu, i) => b.writeUInt32BE(cpu, 8 + 20 * i));
  return b;
}

function pe(machine: number, peOffset = 0x80): Buffer {
  const b = Buffer.alloc(peOffset + 24);
  b.write("MZ", 0, "ascii");
  b.writeUInt32LE(peOffset, 0x3c);
  b.write("PE\0\0", peOffset, "latin1");
  b.writeUInt16LE(machine, peOffset + 4);
  return b;
}

test("ELF: x86-64 and aarch64 from e_machine, either byte order", () => {
  assert.deepEqual(readBinaryKind(elf(0x3e)), { format: "elf", arches: ["x64"] });
  assert.deepEqual(readBinaryKind(elf(0xb7)), { format: "elf", arches: ["arm64"] });
  assert.deepEqual(readBinaryKind(elf(0xb7, true)), { format: "elf", arches: ["arm64"] });
  assert.deepEqual(readBinaryKind(elf(0x28)), { format: "elf", arches: ["arm"] });
  assert.deepEqual(readBinaryKind(elf(0x1234)), { format: "elf", arches: ["other"] });
});

test("Mach-O: arm64 and x86_64 from cputype; a universal binary lists each slice", () => {
  assert.deepEqual(readBinaryKind(machO(0x0100000c)), { format: "mach-o", arches: ["arm64"] });
  assert.deepEqual(readBinaryKind(machO(0x01000007)), { format: "mach-o", arches: ["x64"] });
  assert.deepEqual(readBinaryKind(universal([0x01000007, 0x0100000c])), { format: "mach-o", arches: ["x64", "arm64"] });
});

test("PE: x64 and arm64 from the COFF Machine field behind the DOS stub", () => {
  assert.deepEqual(readBinaryKind(pe(0x8664)), { format: "pe", arches: ["x64"] });
  assert.deepEqual(readBinaryKind(pe(0xaa64, 0xf8)), { format: "pe", arches: ["arm64"] });
  assert.deepEqual(readBinaryKind(pe(0x014c)), { format: "pe", arches: ["ia32"] });
});

test("not native binaries: text, a Java class file, a DOS stub without PE, truncated headers", () => {
  assert.equal(readBinaryKind(Buffer.from("#!/usr/bin/env node\nconsole.log(1)\n")), undefined);
  const javaClass = Buffer.alloc(16);
  javaClass.writeUInt32BE(0xcafebabe, 0);
  javaClass.writeUInt32BE(0x00000034, 4); // minor 0, major 52: a count no universal binary has
  assert.equal(readBinaryKind(javaClass), undefined);
  const dosOnly = pe(0x8664);
  dosOnly.write("NE\0\0", 0x80, "latin1");
  assert.equal(readBinaryKind(dosOnly), undefined);
  assert.equal(readBinaryKind(elf(0x3e).subarray(0, 10)), undefined);
  assert.equal(readBinaryKind(pe(0x8664, 4000).subarray(0, 200)), undefined);
  assert.equal(readBinaryKind(Buffer.alloc(0)), undefined);
});
