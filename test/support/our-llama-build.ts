// Some real-model checks hold only with our llama.cpp build, whose batch and single-token
// kernels compute identical logits; on node-llama-cpp's prebuilt binary they skip. A skip must
// not read as a pass: it prints a "SKIPPED: <why>" line and is counted as skipped, and where
// our build was made on purpose (test/run-all.sh runs `build-llama --required`, then sets
// STATEFUL_CHAT_REQUIRE_FAST_BUILD=1) the prebuilt binary is a failure instead.

import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import { getLlamaRuntime } from "../../src/extension/backends/llamacpp/node-llama-cpp";

export const REQUIRE_FAST_BUILD_ENV = "STATEFUL_CHAT_REQUIRE_FAST_BUILD";

/** Whether this process runs our llama.cpp build (node-llama-cpp's "localBuild"). */
export async function ourLlamaBuildLoaded(): Promise<boolean> {
  return (await getLlamaRuntime()).llama.buildType === "localBuild";
}

/** Skip `t` loudly, or fail it when our build is required. Call as `return skipWithoutOurBuild(t, why)`. */
export function skipWithoutOurBuild(t: TestContext, why: string): void {
  if (process.env[REQUIRE_FAST_BUILD_ENV] === "1") {
    assert.fail(`${REQUIRE_FAST_BUILD_ENV}=1, but the prebuilt llama.cpp binary is loaded, not our build: ${why}`);
  }
  console.error(`SKIPPED: ${t.name}: ${why} (build it with \`node out/cli.js build-llama\`)`);
  t.skip(why);
}
