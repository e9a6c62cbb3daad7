// Which platform-specific packages of the lock each VSIX target carries (lockfile.ts): the
// node-llama-cpp prebuilts of the target table, plus any other package whose os/cpu fits the
// target (today @reflink/reflink-*, glibc only on Linux), and never one of another platform.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { fetchedOnUsePins, lockedPackage, packagesForTarget, platformSpecificPackages } from "../../src/tools/packaging/lockfile";
import { cudaPackagesFor } from "../../src/extension/gpu-binaries/gpu-packages";
import { isNpmPackagePin } from "../../src/extension/gpu-binaries/npm-package";
import { TARGET_SPECS, VSIX_TARGETS } from "../../src/tools/packaging/targets";

const repo = join(import.meta.dirname, "..", "..");

test("every target carries its node-llama-cpp prebuilts and only packages made for its platform", () => {
  const expected: Record<string, string[]> = {
    "darwin-arm64": ["@node-llama-cpp/mac-arm64-metal", "@reflink/reflink-darwin-arm64"],
    "darwin-x64": ["@node-llama-cpp/mac-x64", "@reflink/reflink-darwin-x64"],
    "linux-x64": ["@node-llama-cpp/linux-x64", "@node-llama-cpp/linux-x64-vulkan", "@reflink/reflink-linux-x64-gnu"],
    "linux-arm64": ["@node-llama-cpp/linux-arm64", "@reflink/reflink-linux-arm64-gnu"],
    "win32-x64": ["@node-llama-cpp/win-x64", "@node-llama-cpp/win-x64-vulkan", "@reflink/reflink-win32-x64-msvc"],
    "win32-arm64": ["@node-llama-cpp/win-arm64", "@reflink/reflink-win32-arm64-msvc"],
  };
  for (const target of VSIX_TARGETS) assert.deepEqual(packagesForTarget(repo, target).sort(), expected[target].sort(), target);
});

test("no target ships CUDA (180-360 MB) and every prebuilt named in the table is in the lock with a sha512", () => {
  for (const target of VSIX_TARGETS) {
    assert.ok(!packagesForTarget(repo, target).some((name) => name.includes("cuda")), target);
    for (const prebuilt of TARGET_SPECS[target].prebuilts) {
      const locked = lockedPackage(repo, `@node-llama-cpp/${prebuilt}`, "https://registry.example/");
      assert.match(locked.integrity, /^sha512-/);
      assert.equal(locked.tarballUrl, `https://registry.example/@node-llama-cpp/${prebuilt}/-/${prebuilt}-${locked.version}.tgz`);
    }
  }
  assert.ok(platformSpecificPackages(repo).includes("@node-llama-cpp/linux-x64-cuda"), "CUDA is platform-specific: never copied from node_modules");
});

test("the VSIXs that leave CUDA out carry the lock's pins for the extension to fetch it on first use", () => {
  for (const target of VSIX_TARGETS) {
    const [platform, arch] = target.split("-");
    const pins = fetchedOnUsePins(repo, target);
    assert.deepEqual(pins.map((p) => p.name), [...cudaPackagesFor(platform!, arch!)], target);
    for (const pin of pins) assert.ok(isNpmPackagePin(pin), `${target}: ${JSON.stringify(pin)}`);
  }
  const [cuda] = fetchedOnUsePins(repo, "linux-x64");
  assert.equal(cuda!.version, lockedPackage(repo, "node-llama-cpp").version, "at node-llama-cpp's own version");
});
