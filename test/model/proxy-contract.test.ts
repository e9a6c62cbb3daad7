// The engine contract, run against the proxy engine: the model in an engine host process.
import { engineContract } from "../contract/engine-contract";
import { defaultModelFile } from "../support/default-model";
import { startProxyEngine } from "../support/engine-process";
import { testThreads } from "../support/test-threads";

engineContract("llama.cpp in an engine host process", () =>
  startProxyEngine({ modelPath: defaultModelFile(), backend: "llamacpp", contextSize: 512, threads: testThreads() }),
);
