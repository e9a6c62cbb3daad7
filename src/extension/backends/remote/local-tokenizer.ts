// The remote backend's tokenizer and chat template stay on this side (the ledger is made of
// their tokens): from the same model's GGUF (its vocabulary only, no weights: node-llama-cpp
// `vocabOnly`), or from a Hugging Face folder's tokenizer.json and tokenizer_config.json
// (what a vLLM or SGLang server loads).

import { readFile, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Tokenizer } from "../../core/engine";
import { ModelInvalidError, ModelNotFoundError } from "../../core/errors";
import { HuggingFaceTokenizer, type TokenizerConfig } from "../coreml/tokenizer";
import { assertLooksLikeGguf } from "../llamacpp/gguf-file";
import { LlamaTokenizer } from "../llamacpp/llama-tokenizer";
import { getLlamaRuntime } from "../llamacpp/node-llama-cpp";

export interface LocalTokenizer {
  readonly tokenizer: Tokenizer;
  readonly chatTemplate: string;
  readonly modelName: string;
  dispose(): Promise<void>;
}

export async function loadLocalTokenizer(modelPath: string): Promise<LocalTokenizer> {
  let isFile: boolean;
  try {
    isFile = (await stat(modelPath)).isFile();
  } catch {
    throw new ModelNotFoundError(modelPath);
  }
  if (isFile && basename(modelPath) !== "tokenizer.json") return loadGgufVocabulary(modelPath);
  return loadHuggingFaceFolder(isFile ? dirname(modelPath) : modelPath);
}

async function loadGgufVocabulary(modelPath: string): Promise<LocalTokenizer> {
  await assertLooksLikeGguf(modelPath);
  const { llama } = await getLlamaRuntime();
  let model;
  try {
    model = await llama.loadModel({ modelPath, vocabOnly: true, gpuLayers: 0 });
  } catch (error) {
    throw new ModelInvalidError(modelPath, `llama.cpp could not read its vocabulary: ${String(error)}`, { cause: error });
  }
  const template = model.fileInfo.metadata?.tokenizer?.chat_template;
  if (typeof template !== "string" || template.length === 0) {
    await model.dispose();
    throw new ModelInvalidError(modelPath, "it has no chat template (tokenizer.chat_template)");
  }
  return { tokenizer: new LlamaTokenizer(model), chatTemplate: template, modelName: basename(modelPath), dispose: () => model.dispose() };
}

async function loadHuggingFaceFolder(folder: string): Promise<LocalTokenizer> {
  const jsonPath = join(folder, "tokenizer.json");
  const configPath = join(folder, "tokenizer_config.json");
  let json: ConstructorParameters<typeof HuggingFaceTokenizer>[0];
  let config: TokenizerConfig;
  try {
    json = JSON.parse(await readFile(jsonPath, "utf8")) as typeof json;
    config = JSON.parse(await readFile(configPath, "utf8")) as TokenizerConfig;
  } catch (error) {
    throw new ModelInvalidError(folder, `expected a .gguf file, or a folder with tokenizer.json and tokenizer_config.json (${String(error)})`, { cause: error });
  }
  let template = config.chat_template;
  if (typeof template !== "string") template = await readFile(join(folder, "chat_template.jinja"), "utf8").catch(() => undefined);
  if (typeof template !== "string" || template.length === 0) throw new ModelInvalidError(folder, "no chat template (tokenizer_config.json chat_template or chat_template.jinja)");
  return { tokenizer: new HuggingFaceTokenizer(json, { ...config, chat_template: template }), chatTemplate: template, modelName: basename(folder), dispose: async () => undefined };
}
