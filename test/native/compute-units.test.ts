// "auto" compute units come from the model's shapes, with no prediction in this process:
// range-shaped → cpuAndGPU (loaded once), fixed shapes → cpuAndNeuralEngine (the shape-
// reading load freed at once), multifunction → cpuAndNeuralEngine directly.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ComputeUnitsName, CoreMLAddon, NativeLoadOptions, NativeModel, SimulatedModelSpec } from "../../src/extension/backends/coreml/addon";
import { chooseComputeUnits } from "../../src/extension/backends/coreml/compute-units";
import { loadNativeModel } from "../../src/extension/backends/coreml/load-native";
import { builtAddon } from "./helpers";

/** loadModel() answered by simulated models; records loads and refuses any session (= prediction). */
function fakeLoader(spec: SimulatedModelSpec): Pick<CoreMLAddon, "loadModel"> & { loads: NativeLoadOptions[] } {
  const loads: NativeLoadOptions[] = [];
  return {
    loads,
    async loadModel(_path: string, options: NativeLoadOptions): Promise<NativeModel> {
      loads.push(options);
      const model = builtAddon().createSimulatedModel(spec);
      return {
        info: () => model.info(),
        dispose: () => model.dispose(),
        createSession: () => assert.fail("auto must not run a prediction while choosing compute units"),
      };
    },
  };
}

const unitsOf = (loads: NativeLoadOptions[]): ComputeUnitsName[] => loads.map((load) => load.computeUnits);

test("range-shaped models load once, on cpuAndGPU, and say why", async () => {
  const loader = fakeLoader({ capacity: 256 });
  const loaded = await loadNativeModel(loader, "/m.mlmodelc", "auto");
  assert.deepEqual(unitsOf(loader.loads), ["cpuAndGPU"]);
  assert.equal(loaded.choice.units, "cpuAndGPU");
  assert.match(loaded.details, /auto → cpuAndGPU \(range-shaped query length 1…256/);
  loaded.model.dispose();
});

test("fixed-shape models are reloaded for the Neural Engine and the first load is freed", async () => {
  const addon = builtAddon();
  const before = addon.liveModelCount();
  const loader = fakeLoader({ capacity: 256, queryLengths: [1, 64] });
  const loaded = await loadNativeModel(loader, "/m.mlmodelc", "auto");
  assert.deepEqual(unitsOf(loader.loads), ["cpuAndGPU", "cpuAndNeuralEngine"]);
  assert.match(loaded.details, /auto → cpuAndNeuralEngine \(fixed query lengths \{1, 64\}/);
  assert.equal(addon.liveModelCount(), before + 1, "only the Neural Engine copy is alive");
  loaded.model.dispose();
  assert.equal(addon.liveModelCount(), before);
});

test("multifunction packages go straight to the Neural Engine with their functions", async () => {
  const loader = fakeLoader({ capacity: 256, queryLengths: [64] });
  const loaded = await loadNativeModel(loader, "/m.mlmodelc", "auto", { prefill: "prefill", decode: "decode" });
  assert.deepEqual(loader.loads, [{ computeUnits: "cpuAndNeuralEngine", prefillFunction: "prefill", decodeFunction: "decode" }]);
  assert.match(loaded.details, /prefill\/decode/);
  loaded.model.dispose();
});

test("an explicit setting is used as it is", async () => {
  for (const units of ["cpuAndNeuralEngine", "all", "cpuAndGPU", "cpuOnly"] as const) {
    const loader = fakeLoader({ capacity: 64 });
    const loaded = await loadNativeModel(loader, "/m.mlmodelc", units);
    assert.deepEqual(unitsOf(loader.loads), [units]);
    assert.match(loaded.details, /chosen in settings/);
    loaded.model.dispose();
  }
});

test("chooseComputeUnits is a pure function of the shapes", () => {
  assert.equal(chooseComputeUnits({ queryLengths: { kind: "range", min: 1, max: 4096 } }).units, "cpuAndGPU");
  assert.equal(chooseComputeUnits({ queryLengths: { kind: "enumerated", allowed: [1] } }).units, "cpuAndNeuralEngine");
  assert.equal(chooseComputeUnits({}).units, "cpuAndGPU");
});

test("a converted multifunction folder loads its functions on the Neural Engine, end to end", async () => {
  const { mkdirSync, writeFileSync } = await import("node:fs");
  const path = await import("node:path");
  const { makeModelFolder } = await import("./fixtures");
  const { loadCoreMLEngine } = await import("../../src/extension/backends/coreml/index");
  const folder = makeModelFolder();
  writeFileSync(path.join(folder, "manifest.json"), JSON.stringify({ functions: { prefill: "prefill", decode: "decode", prefill_length: 64 } }));
  const loader = fakeLoader({ capacity: 256, queryLengths: [64], maskWidthFixed: true, positionInput: true, decodeMaskType: "float16" });
  const addon = {
    ...loader,
    compileModel: async (_source: string, destination: string) => mkdirSync(destination, { recursive: true }),
  } as unknown as CoreMLAddon;
  const engine = await loadCoreMLEngine({ modelPath: folder, computeUnits: "auto", cacheRoot: path.join(folder, "cache"), addon });
  assert.deepEqual(loader.loads, [{ computeUnits: "cpuAndNeuralEngine", prefillFunction: "prefill", decodeFunction: "decode" }]);
  assert.match(engine.info.details, /auto → cpuAndNeuralEngine/);
  await engine.dispose();
});
