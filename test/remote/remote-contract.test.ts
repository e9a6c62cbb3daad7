// The engine/session contract every backend passes, run on the remote backend against a
// real llama-server (2 slots): evaluate, truncate, reset, capacity, overlapping calls and
// independent states behave as they do in-process.

import { engineContract } from "../contract/engine-contract";
import { RemoteEngine } from "../../src/extension/backends/remote/remote-engine";
import { defaultModelFile } from "../support/default-model";
import { TestLlamaServer } from "./remote-server-fixture";

engineContract("remote (llama-server -np 2, default model)", async () => {
  const server = await TestLlamaServer.start({ modelPath: defaultModelFile(), slots: 2, contextPerSlot: 1024, threads: 2 });
  try {
    const engine = await RemoteEngine.connect({ server: { url: server.url }, modelPath: defaultModelFile(), contextSize: 1024 });
    const dispose = engine.dispose.bind(engine);
    engine.dispose = async () => {
      await dispose();
      await server.stop();
    };
    return engine;
  } catch (error) {
    await server.stop();
    throw error;
  }
});
