// The shared engine contract (test/contract) run against the coreml backend, with the
// simulated native model in place of Core ML: everything but the framework, on Linux.
import { engineContract } from "../contract/engine-contract";
import { loadCoreMLEngine } from "../../src/extension/backends/coreml/index";
import { makeModelFolder } from "./fixtures";
import { builtAddon } from "./helpers";

engineContract("coreml backend on the simulated model", () =>
  loadCoreMLEngine({
    modelPath: makeModelFolder(),
    computeUnits: "cpuAndNeuralEngine",
    // SmolLM2's vocabulary size, so every tokenizer id is a valid input and output.
    nativeModel: builtAddon().createSimulatedModel({ vocabSize: 49152, capacity: 256, predictDelayMs: 1 }),
  }),
);
