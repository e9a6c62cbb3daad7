// Measuring probes run in a child process: a crash there is a described result here.
import assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { runProbe } from "../../src/extension/backends/coreml/probe";

const request = { modelPath: "/nowhere/model", computeUnits: "cpuAndNeuralEngine", promptTokens: 64, decodeTokens: 8 } as const;

test("a probe child killed by SIGKILL is reported, and this process lives on", async () => {
  const result = await runProbe(request, { script: path.join(__dirname, "fixtures", "probe-crash.ts") });
  assert.deepEqual(result, { ok: false, error: "the probe killed by SIGKILL" });
});

test("the real probe child answers with a typed failure off macOS (or for a missing model)", async () => {
  const result = await runProbe(request);
  assert.equal(result.ok, false);
  assert.match(result.ok ? "" : result.error, /not found|Core ML needs macOS 15|nowhere/);
});
