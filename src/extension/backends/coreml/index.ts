// The coreml backend's public face: availability, and one factory that loads an Engine.
// Imports only the core contract; nothing but the backend picker imports this.
import { promises as fs } from "node:fs";
import type { Engine } from "../../core/engine";
import type { ComputeUnitsChoice } from "../../core/engine-options";
import { BackendUnavailableError, ModelInvalidError } from "../../core/errors";
import { loadAddon, type CoreMLAddon, type NativeModel } from "./addon";
import { compiledModelFor, defaultCacheRoot, type CompileProgress } from "./compile-cache";
import { CoreMLEngine } from "./coreml-engine";
import { loadNativeModel } from "./load-native";
import { resolveModelFolder } from "./model-folder";
import { fromNativeError } from "./native-errors";
import { HuggingFaceTokenizer, type TokenizerConfig } from "./tokenizer";

export { chooseBackend, type BackendChoice, type BackendSetting } from "./backend-choice";
export { isCoreMLModelPath } from "./model-folder";

export type CoreMLAvailability = { available: true } | { available: false; reason: string };

export function coreMLAvailability(): CoreMLAvailability {
  // Off macOS the answer does not depend on whether the addon was built.
  if (process.platform !== "darwin") return { available: false, reason: `Core ML needs macOS 15 (this system is ${process.platform})` };
  const addon = loadAddon();
  if (addon instanceof BackendUnavailableError) return { available: false, reason: addon.message };
  const support = addon.platformSupport();
  return support.supported ? { available: true } : { available: false, reason: support.reason ?? "Core ML needs macOS 15" };
}

export type LoadProgressStage = Parameters<CompileProgress>[0] | "loading";

export interface LoadCoreMLEngineOptions {
  readonly modelPath: string;
  readonly computeUnits: ComputeUnitsChoice;
  /** Defaults to ~/Library/Caches/stateful-chat/coreml (or $STATEFUL_CHAT_CACHE/coreml). */
  readonly cacheRoot?: string;
  /** Stages of a load, for a progress notification (compiling a big model takes minutes). */
  readonly onProgress?: (stage: LoadProgressStage) => void;
  /** Tests only: a native model to use instead of loading one (e.g. the simulated model). */
  readonly nativeModel?: NativeModel;
  /** Tests only: the addon to use instead of the built one, skipping the platform check. */
  readonly addon?: CoreMLAddon;
}

function requireAddon(): CoreMLAddon {
  const availability = coreMLAvailability();
  const addon = loadAddon();
  if (addon instanceof BackendUnavailableError) throw addon;
  if (!availability.available) throw new BackendUnavailableError(availability.reason);
  return addon;
}

async function readTokenizer(jsonPath: string, configPath: string): Promise<{ tokenizer: HuggingFaceTokenizer; template: string }> {
  const json = JSON.parse(await fs.readFile(jsonPath, "utf8")) as ConstructorParameters<typeof HuggingFaceTokenizer>[0];
  const config = JSON.parse(await fs.readFile(configPath, "utf8")) as TokenizerConfig;
  if (typeof config.chat_template !== "string") throw new ModelInvalidError(configPath, "no chat_template");
  return { tokenizer: new HuggingFaceTokenizer(json, config), template: config.chat_template };
}

/** The tokenizer alone (the host side of an engine process tokenizes without the model). */
export async function loadCoreMLTokenizer(modelPath: string): Promise<HuggingFaceTokenizer> {
  const folder = await resolveModelFolder(modelPath);
  return (await readTokenizer(folder.tokenizerJsonPath, folder.tokenizerConfigPath)).tokenizer;
}

export async function loadCoreMLEngine(options: LoadCoreMLEngineOptions): Promise<Engine> {
  const folder = await resolveModelFolder(options.modelPath);
  const { tokenizer, template } = await readTokenizer(folder.tokenizerJsonPath, folder.tokenizerConfigPath);
  const progress = options.onProgress;
  if (options.nativeModel) {
    return new CoreMLEngine({ model: options.nativeModel, tokenizer, chatTemplate: template, modelPath: folder.modelPath, modelName: folder.modelName, details: "simulated" });
  }
  const addon = options.addon ?? requireAddon();
  const cacheRoot = options.cacheRoot ?? defaultCacheRoot();
  // Compiling is inside the try: its native rejections become typed errors too.
  try {
    const compiledPath =
      folder.kind === "mlpackage"
        ? (await compiledModelFor(addon, folder.modelPath, { cacheRoot, onProgress: progress })).compiledPath
        : folder.modelPath;
    progress?.("loading");
    const { model, details } = await loadNativeModel(addon, compiledPath, options.computeUnits, folder.functions);
    return new CoreMLEngine({ model, tokenizer, chatTemplate: template, modelPath: folder.modelPath, modelName: folder.modelName, details });
  } catch (error) {
    throw fromNativeError(error, "Core ML engine");
  }
}
