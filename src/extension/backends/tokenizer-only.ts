// A model's tokenizer without its weights, for the host side of an engine process: the
// Tokenizer contract is synchronous, so tokenizing stays where the ledger is. llama.cpp
// loads the GGUF's vocabulary only (no tensors are mapped); Core ML reads its JSON files.

import type { BackendName, Tokenizer } from "../core/engine";
import { BackendUnavailableError } from "../core/errors";
import { LlamaTokenizer } from "./llamacpp/llama-tokenizer";
import { getLlamaRuntime } from "./llamacpp/node-llama-cpp";

export interface LoadedTokenizer {
  readonly tokenizer: Tokenizer;
  dispose(): Promise<void>;
}

interface CoreMLTokenizerModule {
  loadCoreMLTokenizer(modelPath: string): Promise<Tokenizer>;
}

export async function loadTokenizerOnly(backend: BackendName, modelPath: string): Promise<LoadedTokenizer> {
  if (backend === "coreml") {
    let coreml: CoreMLTokenizerModule;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      coreml = require("./coreml/index") as CoreMLTokenizerModule;
    } catch (error) {
      throw new BackendUnavailableError(`the Core ML tokenizer could not be loaded: ${String(error)}`);
    }
    return { tokenizer: await coreml.loadCoreMLTokenizer(modelPath), dispose: async () => undefined };
  }
  const { llama } = await getLlamaRuntime();
  const model = await llama.loadModel({ modelPath, vocabOnly: true, gpuLayers: 0 });
  return { tokenizer: new LlamaTokenizer(model), dispose: () => model.dispose() };
}
