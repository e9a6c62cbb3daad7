// Another llama.cpp's libraries under our addon (foreign-libraries.ts): found in a process's
// maps, and the folders that would load them kept off the engine process's library path.
// The maps text is the one a bench run showed: llama-server's folder on LD_LIBRARY_PATH put
// its libggml-base, libggml-cpu and libllama-common under our addon.

import assert from "node:assert/strict";
import { delimiter } from "node:path";
import { describe, it } from "node:test";
import { foreignLlamaLibraries, withoutLlamaFolders } from "../../src/extension/backends/llamacpp/foreign-libraries";

const OURS = "/w/node_modules/node-llama-cpp/llama/localBuilds/linux-x64-1a4an/Release";
const PEER = "/w/.cache/peer/build-11434.0.0-no-amx/bin";
const line = (path: string) => `7f3c2a000000-7f3c2a100000 r-xp 00000000 08:01 1234 ${path}`;
const maps = (...paths: string[]) => [line("/usr/bin/node"), ...paths.map(line), "7ffd1000-7ffd2000 rw-p 00000000 00:00 0 [stack]"].join("\n");

describe("another llama.cpp's libraries under our addon", () => {
  it("names the libraries loaded from outside the addon's folder", () => {
    const mixed = maps(
      `${OURS}/llama-addon.node`,
      `${OURS}/libllama.v0.4.0.1a4an471.so`,
      `${OURS}/libggml.v0.4.0.1a4an471.so`,
      `${PEER}/libggml-base.so.0.26.0`,
      `${PEER}/libggml-cpu.so.0.26.0`,
      `${PEER}/libllama-common.so.0.6.0`,
      "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30",
    );
    assert.deepEqual(foreignLlamaLibraries(mixed), [`${PEER}/libggml-base.so.0.26.0`, `${PEER}/libggml-cpu.so.0.26.0`, `${PEER}/libllama-common.so.0.6.0`]);
  });

  it("none when every llama.cpp library sits beside the addon (a CPU variant and a GPU backend included)", () => {
    const clean = maps(`${OURS}/llama-addon.node`, `${OURS}/libggml-base.so`, `${OURS}/libggml-cpu-zen4.so`, `${OURS}/libggml-vulkan.so`, `${OURS}/libllama-common.so`, "/usr/lib/libvulkan.so.1.3.239");
    assert.deepEqual(foreignLlamaLibraries(clean), []);
  });

  it("none before the addon is loaded", () => {
    assert.deepEqual(foreignLlamaLibraries(maps(`${PEER}/libggml-base.so.0.26.0`)), []);
  });

  it("drops the folders holding llama.cpp libraries from the library path, keeps the others in order", () => {
    const holds = (folder: string) => folder === PEER;
    assert.deepEqual(withoutLlamaFolders(["/opt/cuda/lib64", PEER, "/usr/local/lib"].join(delimiter), holds), {
      value: ["/opt/cuda/lib64", "/usr/local/lib"].join(delimiter),
      dropped: [PEER],
    });
    assert.deepEqual(withoutLlamaFolders(PEER, holds), { value: undefined, dropped: [PEER] });
    assert.deepEqual(withoutLlamaFolders("/opt/cuda/lib64", holds), { value: "/opt/cuda/lib64", dropped: [] });
    assert.deepEqual(withoutLlamaFolders(undefined, holds), { value: undefined, dropped: [] });
  });
});
