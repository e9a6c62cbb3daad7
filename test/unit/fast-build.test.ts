// Which llama.cpp binary loads: our threadpool build only when it is complete, was built
// with our options, and fits this CPU; the prebuilt one otherwise.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { buildRunsOnThisCpu, CPU_SIGNATURE_FILE } from "../../src/extension/backends/llamacpp/cpu-signature";
import { FAST_BUILD_CMAKE_OPTIONS, findFastBuild } from "../../src/extension/backends/llamacpp/fast-build";

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
