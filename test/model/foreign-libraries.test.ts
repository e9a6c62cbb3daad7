// Another llama.cpp's folder on LD_LIBRARY_PATH (foreign-libraries.ts), with the real default
// model: the folder of node-llama-cpp's own prebuilt CPU binary stands in for a user's llama.cpp
// build (the same library names: libggml-base.so, libggml-cpu-*.so, libllama-common.so). With
// our build loaded, such a folder on the path would put its libraries under our addon.
// - The engine process, started from a parent that has the folder on its path, maps no
//   llama.cpp library from outside its addon's folder, and answers.
// - A process that has the folder on its own path and loads llama.cpp itself (the CLI, the
//   extension host's tokenizer) is refused before loading, naming the folder (loaded, it
//   corrupts its heap: "corrupted size vs. prev_size"); it does not run mixed.
// Linux x64 only (/proc/<pid>/maps, the prebuilt's folder name).

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { foreignLlamaLibraries } from "../../src/extension/backends/llamacpp/foreign-libraries";
import type { ProxyEngine } from "../../src/extension/engine-host/proxy-engine";
import { defaultModelFile, repoRoot } from "../support/default-model";
import { startProxyEngine } from "../support/engine-process";
import { ourLlamaBuildLoaded, skipWithoutOurBuild } from "../support/our-llama-build";

const linuxX64 = process.platform === "linux" && process.arch === "x64";
/** Where npm installs node-llama-cpp's prebuilt Linux x64 CPU binary (its package exports no path to resolve). */
const prebuiltFolder = () => join(repoRoot, "node_modules", "@node-llama-cpp", "linux-x64", "bins", "linux-x64");

describe("another llama.cpp's folder on LD_LIBRARY_PATH", { skip: linuxX64 ? false : "Linux x64 only" }, () => {
  let ours = false;
  const saved = process.env.LD_LIBRARY_PATH;
  const restoreLibraryPath = () => {
    if (saved === undefined) delete process.env.LD_LIBRARY_PATH;
    else process.env.LD_LIBRARY_PATH = saved;
  };
  before(async () => {
    ours = await ourLlamaBuildLoaded();
    assert.ok(existsSync(join(prebuiltFolder(), "libggml-base.so")), `node-llama-cpp's prebuilt CPU binary at ${prebuiltFolder()}`);
  });
  after(restoreLibraryPath);

  it("the engine process is started without it: no library from outside its addon's folder, and it answers", async (t) => {
    if (!ours) return skipWithoutOurBuild(t, "with the prebuilt loaded, the prebuilt's folder is the addon's own");
    // Only children see this: this process's loader read its library path when it started.
    process.env.LD_LIBRARY_PATH = `/nonexistent-cuda/lib64:${prebuiltFolder()}`;
    let engine: ProxyEngine | undefined;
    try {
      engine = await startProxyEngine({ modelPath: defaultModelFile(), backend: "llamacpp", contextSize: 256, threads: 1 });
      const maps = readFileSync(`/proc/${engine.pid}/maps`, "utf8");
      assert.match(maps, /llama-addon\.node/);
      assert.deepEqual(foreignLlamaLibraries(maps), []);
      const state = await engine.createState();
      const next = await state.evaluate(engine.tokenizer.encode("The capital of France is", { specials: false }), { temperature: 0 });
      assert.equal(typeof next, "number");
      await state.dispose();
    } finally {
      await engine?.dispose();
      restoreLibraryPath();
    }
  });

  it("a process with it on its own path that loads llama.cpp is refused, naming the folder", async (t) => {
    if (!ours) return skipWithoutOurBuild(t, "with the prebuilt loaded, the prebuilt's folder is the addon's own");
    const script = [
      `const { loadTokenizerOnly } = require(${JSON.stringify(join(repoRoot, "src", "extension", "backends", "load-engine.ts"))});`,
      `loadTokenizerOnly("llamacpp", ${JSON.stringify(defaultModelFile())})`,
      `  .then(() => console.log("LOADED"), (e) => console.log("REFUSED " + e.constructor.name + ": " + e.message));`,
    ].join("\n");
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "-e", script], {
      env: { ...process.env, LD_LIBRARY_PATH: prebuiltFolder() },
      timeout: 120_000,
    });
    assert.match(stdout, /^REFUSED BackendUnavailableError: LD_LIBRARY_PATH names another llama\.cpp's folder \(/m);
    assert.ok(stdout.includes(prebuiltFolder()), stdout);
    assert.match(stdout, /without that folder on LD_LIBRARY_PATH/);
  });
});
