import { LlamaEngine } from "../../src/extension/backends/llamacpp/llama-engine";
import { engineContract } from "../contract/engine-contract";
import { defaultModelFile } from "../support/default-model";
import { testThreads } from "../support/test-threads";

engineContract("llama.cpp on the default GGUF", () =>
  LlamaEngine.load({ modelPath: defaultModelFile(), contextSize: 512, threads: testThreads() }),
);
