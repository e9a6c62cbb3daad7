// The default thread count is measured on the real model, remembered, and used.
import assert from "node:assert/strict";
import { mkdtemp, readFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { LlamaEngine } from "../../src/extension/backends/llamacpp/llama-engine";
import { defaultModelFile } from "../support/default-model";

describe("llama.cpp default threads", () => {
  it("measures each candidate count once, remembers the result and reuses it", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "threads-")), "llama-threads.json");
    const first = await LlamaEngine.load({ modelPath: defaultModelFile(), contextSize: 512, threadCalibrationFile: file });
    await first.dispose();
    const saved = JSON.parse(await readFile(file, "utf8")) as Record<string, { threads: number; tokensPerSecond: Record<string, number> }>;
    const entries = Object.values(saved);
    assert.equal(entries.length, 1);
    const [calibration] = entries;
    assert.ok(calibration.threads >= 1 && calibration.threads <= availableParallelism());
    if (availableParallelism() > 1) {
      assert.ok(Object.keys(calibration.tokensPerSecond).length >= 2, "more than one count was measured");
      for (const speed of Object.values(calibration.tokensPerSecond)) assert.ok(speed > 0);
    }
    assert.match(first.info.details, new RegExp(`, ${calibration.threads} threads`));
    // A second load takes the remembered count: the file is unchanged and the details agree.
    const second = await LlamaEngine.load({ modelPath: defaultModelFile(), contextSize: 512, threadCalibrationFile: file });
    await second.dispose();
    assert.deepEqual(JSON.parse(await readFile(file, "utf8")), saved);
    assert.match(second.info.details, new RegExp(`, ${calibration.threads} threads`));
    // An explicit count is used as given, without measuring.
    const explicit = await LlamaEngine.load({ modelPath: defaultModelFile(), contextSize: 512, threads: 1 });
    await explicit.dispose();
    assert.match(explicit.info.details, /, 1 threads, context/);
  });
});
