// The addon's simulated model shaped like the public model families: refused at load when
// its shapes cannot work, and otherwise generating what a plain range-shaped model does.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SimulatedModelSpec } from "../../src/extension/backends/coreml/addon";
import { loadCoreMLEngine } from "../../src/extension/backends/coreml/index";
import { makeModelFolder } from "./fixtures";
import { builtAddon } from "./helpers";

async function greedyRun(spec: SimulatedModelSpec, prompt: number[], steps: number): Promise<number[]> {
  const engine = await loadCoreMLEngine({ modelPath: makeModelFolder(), computeUnits: "cpuAndGPU", nativeModel: builtAddon().createSimulatedModel(spec) });
  const state = await engine.createState();
  const produced = [(await state.evaluate(prompt, { temperature: 0 }))!];
  for (let step = 0; step < steps; step++) produced.push((await state.evaluate([produced.at(-1)!], { temperature: 0 }))!);
  await engine.dispose();
  return produced;
}

const prompt = Array.from({ length: 37 }, (_, i) => (i * 5) % 60);

test("a fixed-width mask without a position input is refused when the model loads", () => {
  assert.throws(() => builtAddon().createSimulatedModel({ capacity: 64, queryLengths: [16], maskWidthFixed: true }), {
    code: "model_invalid",
    message: /cannot carry the write position/,
  });
});

test("each public shape family generates the same tokens as a range-shaped model", async () => {
  const reference = await greedyRun({ capacity: 128 }, prompt, 5);
  const families: Record<string, SimulatedModelSpec> = {
    "camelCase, range-shaped": { capacity: 128, camelCaseNames: true },
    "mask rows fixed at 1": { capacity: 128, camelCaseNames: true, maskRowsFixed: 1 },
    "enumerated {1, 64}, fp32 mask": { capacity: 128, queryLengths: [1, 64], maskType: "float32" },
    "fixed 16, last-position logits": { capacity: 128, queryLengths: [16], lastLogitsOnly: true },
    "fixed shapes + position input": { capacity: 128, queryLengths: [1, 16], maskWidthFixed: true, positionInput: true },
    "two functions, decode mask fp32": { capacity: 128, queryLengths: [16], decodeMaskType: "float32", maskWidthFixed: true, positionInput: true },
  };
  for (const [name, spec] of Object.entries(families)) {
    assert.deepEqual(await greedyRun(spec, prompt, 5), reference, name);
  }
});
