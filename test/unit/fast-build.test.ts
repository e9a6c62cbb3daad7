// Which llama.cpp binary loads: our threadpool build only when it is complete, was built
// with our options, and fits this CPU (the native one) or carries every CPU variant (the
// portable one); the prebuilt one otherwise. And how the model details name it.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { buildRunsOnThisCpu, CPU_SIGNATURE_FILE } from "../../src/extension/backends/llamacpp/cpu-signature";
import { buildOptionsOf, FAST_BUILD_CMAKE_OPTIONS, fastBuildCmakeOptions, findFastBuild, llamaBuildLabel, PORTABLE_BUILD_CMAKE_OPTIONS, portableBuildCmakeOptions, portableBuildSupported } from "../../src/extension/backends/llamacpp/fast-build";
import { buildUnsupportedHere } from "../../src/tools/llama-build/fast-llama-build";
import { cpuVariantInMaps } from "../../src/extension/backends/llamacpp/cpu-variant";

async function fakeBuild(root: string, name: string, options: Record<string, string>, complete = true): Promise<string> {
  const release = join(root, name, "Release");
  await mkdir(release, { recursive: true });
  await writeFile(join(release, "_nlcBuildMetadata.json"), JSON.stringify({ buildOptions: { gpu: false, customCmakeOptions: options } }));
  if (complete) {
    await writeFile(join(release, "llama-addon.node"), "");
    await writeFile(join(root, name, "buildDone.status"), "");
  }
  return release;
}

describe("our llama.cpp build", () => {
  it("is found by its cmake options, complete builds only", async () => {
    const root = await mkdtemp(join(tmpdir(), "local-builds-"));
    assert.equal(findFastBuild(join(root, "missing")), undefined);
    await fakeBuild(root, "linux-x64", {});
    await fakeBuild(root, "linux-x64-half", { ...FAST_BUILD_CMAKE_OPTIONS }, false);
    await fakeBuild(root, "linux-x64-other", { ...FAST_BUILD_CMAKE_OPTIONS, GGML_NATIVE: "OFF" });
    // A threadpool build from node-llama-cpp's bundled (older) llama.cpp source.
    await fakeBuild(root, "linux-x64-bundled-source", { GGML_OPENMP: "OFF" });
    assert.equal(findFastBuild(root), undefined);
    await fakeBuild(root, "linux-x64-ours", { ...FAST_BUILD_CMAKE_OPTIONS });
    assert.equal(findFastBuild(root), "linux-x64-ours");
  });

  it("loads only on a CPU that has every instruction-set flag of the build machine", async () => {
    const release = await mkdtemp(join(tmpdir(), "release-"));
    const here = { model: "Test CPU", flags: ["avx", "avx2", "fma", "sse4_2"] };
    assert.equal(buildRunsOnThisCpu(release, here), false, "no signature: not ours to trust");
    await writeFile(join(release, CPU_SIGNATURE_FILE), JSON.stringify({ model: "Build CPU", flags: ["avx", "avx2", "sse4_2"] }));
    assert.equal(buildRunsOnThisCpu(release, here), true);
    await writeFile(join(release, CPU_SIGNATURE_FILE), JSON.stringify({ model: "Build CPU", flags: ["avx", "avx2", "avx512f"] }));
    assert.equal(buildRunsOnThisCpu(release, here), false);
    await writeFile(join(release, CPU_SIGNATURE_FILE), "{not json");
    assert.equal(buildRunsOnThisCpu(release, here), false);
  });
});

describe("which of our builds serves", () => {
  it("finds the portable build by its own options, apart from the native one", async () => {
    const root = await mkdtemp(join(tmpdir(), "local-builds-"));
    await fakeBuild(root, "linux-x64-native", { ...FAST_BUILD_CMAKE_OPTIONS });
    assert.equal(findFastBuild(root, PORTABLE_BUILD_CMAKE_OPTIONS), undefined);
    await fakeBuild(root, "linux-x64-portable", { ...PORTABLE_BUILD_CMAKE_OPTIONS });
    assert.equal(findFastBuild(root, PORTABLE_BUILD_CMAKE_OPTIONS), "linux-x64-portable");
    assert.equal(findFastBuild(root), "linux-x64-native");
    assert.equal(buildOptionsOf("portable").GGML_CPU_ALL_VARIANTS, "ON");
    assert.equal(buildOptionsOf("native").GGML_BACKEND_DL, undefined);
  });

  it("labels the build and names the CPU variant ggml mapped", () => {
    assert.equal(llamaBuildLabel("native"), "our build, native");
    assert.equal(llamaBuildLabel("portable"), "our build, portable CPU variants");
    assert.equal(llamaBuildLabel("prebuilt"), "node-llama-cpp prebuilt");
    const maps = [
      "7f00-7f10 r-xp 00000000 08:01 12 /x/localBuilds/linux-x64/Release/libggml-base.so",
      "7f20-7f30 r-xp 00000000 08:01 13 /x/localBuilds/linux-x64/Release/libggml-cpu-icelake.so",
    ].join("\n");
    assert.equal(cpuVariantInMaps(maps), "icelake");
    assert.equal(cpuVariantInMaps("7f20-7f30 r-xp 0 0 1 /x/Release/libggml-cpu.so"), undefined, "a native build has no variant");
    assert.equal(cpuVariantInMaps("7f20-7f30 r-xp 0 0 1 /x/bins/libggml-cpu-armv8.2_1.so"), "armv8.2_1");
  });
});

describe("our build on each platform", () => {
  it("keeps linux-x64's options exactly (the cached builds and their folder names hang on them)", () => {
    assert.deepEqual(fastBuildCmakeOptions("linux", "x64"), {
      GGML_OPENMP: "OFF",
      CMAKE_C_FLAGS_RELEASE: "-O3 -DNDEBUG -mno-amx-tile -mno-amx-int8 -mno-amx-bf16",
      CMAKE_CXX_FLAGS_RELEASE: "-O3 -DNDEBUG -mno-amx-tile -mno-amx-int8 -mno-amx-bf16",
      STATEFUL_CHAT_LLAMA_CPP: FAST_BUILD_CMAKE_OPTIONS.STATEFUL_CHAT_LLAMA_CPP,
      STATEFUL_CHAT_PATCHES: FAST_BUILD_CMAKE_OPTIONS.STATEFUL_CHAT_PATCHES,
    });
    assert.deepEqual(Object.keys(portableBuildCmakeOptions("linux", "x64")).slice(-3), ["GGML_NATIVE", "GGML_BACKEND_DL", "GGML_CPU_ALL_VARIANTS"]);
  });

  it("sets no x86 flag where the compiler would refuse it: arm64, and MSVC on Windows", () => {
    for (const [platform, arch] of [["linux", "arm64"], ["darwin", "arm64"], ["win32", "x64"]] as const) {
      const options = portableBuildCmakeOptions(platform, arch);
      assert.equal(options.CMAKE_C_FLAGS_RELEASE, undefined, `${platform}-${arch}`);
      assert.equal(options.CMAKE_CXX_FLAGS_RELEASE, undefined, `${platform}-${arch}`);
      assert.equal(options.GGML_CPU_ALL_VARIANTS, "ON");
    }
    assert.match(fastBuildCmakeOptions("darwin", "x64").CMAKE_CXX_FLAGS_RELEASE ?? "", /-mno-amx-tile/);
  });

  it("is made where ggml builds CPU variants; the native one on linux-x64 only", () => {
    assert.deepEqual(
      ["linux-x64", "linux-arm64", "darwin-arm64", "darwin-x64", "win32-x64", "win32-arm64", "linux-ppc64"].filter((t) => {
        const [platform, arch] = t.split("-") as [NodeJS.Platform, string];
        return portableBuildSupported(platform, arch);
      }),
      ["linux-x64", "linux-arm64", "darwin-arm64", "darwin-x64", "win32-x64"],
    );
    assert.equal(buildUnsupportedHere("portable", "win32", "x64"), undefined);
    assert.match(buildUnsupportedHere("portable", "win32", "arm64") ?? "", /ggml builds no CPU variants on win32-arm64: node-llama-cpp's prebuilt serves there/);
    assert.equal(buildUnsupportedHere("native", "linux", "x64"), undefined);
    assert.match(buildUnsupportedHere("native", "darwin", "arm64") ?? "", /native threadpool build is made on linux-x64 only/);
  });
});

