// check-vsix.ts on synthetic entry lists: a complete darwin-arm64 VSIX passes; another
// platform's binary, a missing entry point, a stray prebuilt, a test file or a size over budget
// each fail with a problem that names it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkVsix, REQUIRED_FILES } from "../../src/tools/packaging/check-vsix";
import type { VsixEntry } from "../../src/tools/packaging/vsix-reader";

const VERSION = "3.21.1";

function entry(name: string, head: Buffer = Buffer.from("text"), text?: string): VsixEntry {
  return { name, size: head.length, head, text };
}

function machOArm64(): Buffer {
  const b = Buffer.alloc(32);
  b.writeUInt32LE(0xfeedfacf, 0);
  b.writeUInt32LE(0x0100000c, 4);
  return b;
}

function elfX64(): Buffer {
  const b = Buffer.alloc(64);
  b.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1], 0);
  b.writeUInt16LE(0x3e, 18);
  return b;
}

function darwinArm64(): VsixEntry[] {
  const version = JSON.stringify({ version: VERSION });
  return [
    entry("extension.vsixmanifest", Buffer.from(""), '<Identity TargetPlatform="darwin-arm64" />'),
    ...REQUIRED_FILES.map((file) => entry(`extension/${file}`, Buffer.from("{}"), file.endsWith("package.json") ? version : undefined)),
    entry("extension/node_modules/@node-llama-cpp/mac-arm64-metal/package.json", Buffer.from(version), version),
    entry("extension/node_modules/@node-llama-cpp/mac-arm64-metal/bins/mac-arm64-metal/llama-addon.node", machOArm64()),
    entry("extension/out/gpu-binaries.json", Buffer.from("[]"), "[]"),
  ];
}

const check = (entries: VsixEntry[], bytes = 7e6) => checkVsix({ target: "darwin-arm64", entries, bytes, lockedVersion: VERSION });

test("a complete darwin-arm64 VSIX passes", () => {
  const report = check(darwinArm64());
  assert.deepEqual(report.problems, []);
  assert.equal(report.binaries.length, 1);
});

test("a Linux binary in a darwin VSIX is named, read from its header whatever its file name", () => {
  const report = check([...darwinArm64(), entry("extension/node_modules/@reflink/reflink-linux-x64-gnu/reflink.darwin-arm64.node", elfX64())]);
  assert.equal(report.problems.length, 1);
  assert.match(report.problems[0], /reflink.*elf x64, darwin-arm64 needs mach-o arm64/);
});

test("a missing entry point, another target's prebuilt, a test file and the size are each reported", () => {
  const entries = darwinArm64().filter((e) => e.name !== "extension/out/engine-host.js");
  entries.push(entry("extension/node_modules/@node-llama-cpp/mac-x64/package.json", Buffer.from("{}"), "{}"));
  entries.push(entry("extension/out/test/index.js"));
  const problems = check(entries, 20e6).problems.join("\n");
  assert.match(problems, /missing out\/engine-host\.js/);
  assert.match(problems, /@node-llama-cpp\/mac-x64 is not darwin-arm64's/);
  assert.match(problems, /out\/test\/index\.js should not be shipped/);
  assert.match(problems, /20\.0 MB, over darwin-arm64's budget/);
});

test("a prebuilt at another version than the lock's is refused", () => {
  const entries = darwinArm64().map((e) => (e.name.endsWith("mac-arm64-metal/package.json") ? entry(e.name, e.head, '{"version":"3.20.0"}') : e));
  assert.match(check(entries).problems.join("\n"), /mac-arm64-metal: version 3\.20\.0, the lock says 3\.21\.1/);
});

test("the release's darwin VSIX must carry the Core ML addon, a Mach-O of its arch", () => {
  const input = { target: "darwin-arm64" as const, bytes: 7e6, lockedVersion: VERSION, expectCoremlAddon: true };
  assert.match(checkVsix({ ...input, entries: darwinArm64() }).problems.join("\n"), /missing native\/build\/Release\/stateful_chat_coreml\.node/);
  const withAddon = [...darwinArm64(), entry("extension/native/build/Release/stateful_chat_coreml.node", machOArm64())];
  assert.deepEqual(checkVsix({ ...input, entries: withAddon }).problems, []);
  const linuxAddon = [...darwinArm64(), entry("extension/native/build/Release/stateful_chat_coreml.node", elfX64())];
  assert.match(checkVsix({ ...input, entries: linuxAddon }).problems.join("\n"), /stateful_chat_coreml\.node is elf x64/);
});

test("the CUDA pins the extension fetches on first use: exactly the target's, at the lock's version", () => {
  const pin = (name: string, version = VERSION) => ({ name: `@node-llama-cpp/${name}`, version, integrity: `sha512-${"A".repeat(86)}==`, tarballUrl: `https://registry.npmjs.org/@node-llama-cpp/${name}/-/${name}-${version}.tgz` });
  const linux = (pins: unknown): VsixEntry[] =>
    darwinArm64()
      .filter((e) => !e.name.includes("@node-llama-cpp/") && !e.name.endsWith("gpu-binaries.json") && e.name !== "extension.vsixmanifest")
      .concat([
        entry("extension.vsixmanifest", Buffer.from(""), '<Identity TargetPlatform="linux-x64" />'),
        ...["linux-x64", "linux-x64-vulkan"].flatMap((p) => [
          entry(`extension/node_modules/@node-llama-cpp/${p}/package.json`, Buffer.from("{}"), JSON.stringify({ version: VERSION })),
          entry(`extension/node_modules/@node-llama-cpp/${p}/bins/${p}/llama-addon.node`, elfX64()),
        ]),
        ...(pins === undefined ? [] : [entry("extension/out/gpu-binaries.json", Buffer.from("[]"), JSON.stringify(pins))]),
      ]);
  const problems = (pins: unknown) => checkVsix({ target: "linux-x64", entries: linux(pins), bytes: 40e6, lockedVersion: VERSION }).problems;
  assert.deepEqual(problems([pin("linux-x64-cuda"), pin("linux-x64-cuda-ext")]), []);
  assert.deepEqual(problems(undefined), ["missing out/gpu-binaries.json"]);
  assert.match(problems([pin("linux-x64-cuda")]).join(), /pins @node-llama-cpp\/linux-x64-cuda; the target fetches @node-llama-cpp\/linux-x64-cuda, @node-llama-cpp\/linux-x64-cuda-ext/);
  assert.match(problems([pin("linux-x64-cuda", "3.20.0"), pin("linux-x64-cuda-ext")]).join(), /linux-x64-cuda 3\.20\.0, the lock says 3\.21\.1/);
  assert.match(problems([{ ...pin("linux-x64-cuda"), integrity: "sha1-x" }, pin("linux-x64-cuda-ext")]).join(), /something else than package pins/);
});

test("a release job that built our portable llama.cpp must ship it (--expect-our-build)", () => {
  const input = { target: "darwin-arm64" as const, bytes: 7e6, lockedVersion: VERSION, expectOurBuild: true };
  assert.match(checkVsix({ ...input, entries: darwinArm64() }).problems.join("\n"), /no portable llama\.cpp build of ours \(node out\/cli\.js build-llama --portable on a darwin-arm64 machine/);
  const build = "extension/node_modules/node-llama-cpp/llama/localBuilds/mac-arm64-portable/Release";
  const withBuild = [
    ...darwinArm64(),
    ...["llama-addon.node", "libggml-base.dylib", "libggml-cpu-apple_m1.so", "libggml-cpu-apple_m4.so"].map((name) => entry(`${build}/${name}`, machOArm64())),
  ];
  assert.deepEqual(checkVsix({ ...input, entries: withBuild }).problems, []);
  const withoutBaseline = withBuild.filter((e) => !e.name.endsWith("apple_m1.so"));
  assert.match(checkVsix({ ...input, entries: withoutBaseline }).problems.join("\n"), /lacks the baseline CPU variant apple_m1/);
});
