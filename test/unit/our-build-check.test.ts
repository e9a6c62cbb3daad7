// check:vsix on our llama.cpp build (our-build-check.ts) and what packaging stages of
// node-llama-cpp's localBuilds (stage.ts): the portable build only, every CPU variant library
// of the target's format and architecture, the baseline variant among them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BASELINE_CPU_VARIANT, checkOurBuild, LOCAL_BUILDS } from "../../src/tools/packaging/our-build-check";
import { portableBuildSupported } from "../../src/extension/backends/llamacpp/fast-build";
import { TARGET_SPECS, VSIX_TARGETS } from "../../src/tools/packaging/targets";
import { unshippedInside } from "../../src/tools/packaging/stage";
import type { VsixEntry } from "../../src/tools/packaging/vsix-reader";

function elf(machine: number): Buffer {
  const b = Buffer.alloc(64);
  b.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1], 0);
  b.writeUInt16LE(machine, 18);
  return b;
}
const X64 = 0x3e;
const AARCH64 = 0xb7;

function files(folder: string, names: readonly string[], head = elf(X64)): Map<string, VsixEntry> {
  const map = new Map<string, VsixEntry>();
  for (const name of ["llama-addon.node", "libggml-base.so", ...names]) {
    const path = `${LOCAL_BUILDS}${folder}/Release/${name}`;
    map.set(path, { name: `extension/${path}`, size: 64, head: name.startsWith("libggml-cpu-") ? head : elf(X64), text: undefined });
  }
  map.set(`${LOCAL_BUILDS}${folder}/buildDone.status`, { name: "x", size: 4, head: Buffer.from("done"), text: undefined });
  return map;
}

const PORTABLE = ["libggml-cpu-x64.so", "libggml-cpu-sse42.so", "libggml-cpu-haswell.so", "libggml-cpu-zen4.so"];

test("a VSIX without our build has nothing to check", () => {
  assert.deepEqual(checkOurBuild("linux-x64", new Map()), { problems: [], builds: [] });
});

test("the portable build passes and its variants are listed", () => {
  const report = checkOurBuild("linux-x64", files("linux-x64-portable", PORTABLE));
  assert.deepEqual(report.problems, []);
  assert.deepEqual(report.builds, [{ folder: "linux-x64-portable", variants: ["haswell", "sse42", "x64", "zen4"] }]);
});

test("a native build (one libggml-cpu.so, no variants) is refused", () => {
  const report = checkOurBuild("linux-x64", files("linux-x64-native", ["libggml-cpu.so"]));
  assert.equal(report.problems.length, 1);
  assert.match(report.problems[0]!, /native build/);
});

test("a native build is allowed only in a VSIX for this machine (npm start, the e2e suite)", () => {
  const report = checkOurBuild("linux-x64", files("linux-x64-native", ["libggml-cpu.so"]), true);
  assert.deepEqual(report.problems, []);
  assert.deepEqual(report.builds, [{ folder: "linux-x64-native", variants: [] }]);
});

test("the set must cover the baseline x64 variant", () => {
  const report = checkOurBuild("linux-x64", files("p", PORTABLE.filter((n) => n !== "libggml-cpu-x64.so")));
  assert.equal(report.problems.length, 1);
  assert.match(report.problems[0]!, /lacks the baseline CPU variant x64/);
});

test("every variant library must be ELF x86-64 for linux-x64", () => {
  const report = checkOurBuild("linux-x64", files("p", PORTABLE, elf(AARCH64)));
  assert.equal(report.problems.length, PORTABLE.length);
  assert.match(report.problems[0]!, /is elf arm64, linux-x64 needs elf x64/);
  const text = checkOurBuild("linux-x64", files("p", PORTABLE, Buffer.from("not a binary")));
  assert.match(text.problems[0]!, /not a native binary/);
});

test("staging ships only the named local build of node-llama-cpp", () => {
  assert.equal(unshippedInside("node-llama-cpp", "llama/localBuilds", undefined), true);
  assert.equal(unshippedInside("node-llama-cpp", "llama/localBuilds", "linux-x64-portable"), false);
  assert.equal(unshippedInside("node-llama-cpp", "llama/localBuilds/linux-x64-portable", "linux-x64-portable"), false);
  assert.equal(unshippedInside("node-llama-cpp", "llama/localBuilds/linux-x64-native", "linux-x64-portable"), true);
  assert.equal(unshippedInside("node-llama-cpp", "llama/localBuilds/linux-x64-portable/Release/libggml-cpu-x64.so", "linux-x64-portable"), false);
  assert.equal(unshippedInside("node-llama-cpp", "llama/llama.cpp", "linux-x64-portable"), true);
  assert.equal(unshippedInside("other", "llama/localBuilds/x", undefined), false);
});

test("every target with a portable build of ours has a baseline variant to require", () => {
  for (const target of VSIX_TARGETS) {
    const spec = TARGET_SPECS[target];
    const platform = target.split("-")[0] as NodeJS.Platform;
    if (portableBuildSupported(platform, spec.arch)) assert.ok(BASELINE_CPU_VARIANT[target], `${target} has no baseline variant`);
    else assert.equal(BASELINE_CPU_VARIANT[target], undefined, `${target} has no portable build`);
  }
});

