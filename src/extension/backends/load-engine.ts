// The one place that picks a backend, for an engine (loadEngine) or a tokenizer alone
// (loadTokenizerOnly). `auto` uses Core ML for Core ML models on macOS 15+ and llama.cpp
// otherwise; a choice that cannot run here falls back visibly (a notice). `remote` is never
// chosen by `auto`: it needs a server (statefulChat.server.url). What a request may ask for
// (EngineRequest, the choices, the defaults) is the core's: core/engine-options.ts.

import type { BackendName, Engine, Tokenizer } from "../core/engine";
import type { ComputeUnitsChoice, EngineRequest } from "../core/engine-options";
import { BackendUnavailableError } from "../core/errors";
import { LlamaEngine } from "./llamacpp/llama-engine";
import { LlamaTokenizer } from "./llamacpp/llama-tokenizer";
import { getLlamaRuntime, importNodeLlamaCpp } from "./llamacpp/node-llama-cpp";
import { nodeLlamaCppPackageDir } from "./llamacpp/fast-build";
import { RemoteEngine } from "./remote/remote-engine";
import type { ServerStatusListener } from "../core/server-status";
import { withSpeculation } from "./speculation";

/** What only an in-process load can take (not sent to an engine process). */
export interface LoadHooks {
  /** Backend `remote`: told what a turn waits for (busy server, queued on it). */
  readonly onServerStatus?: ServerStatusListener;
  /** Backend `remote`: read the API key from here on every request (the shell's secret storage). */
  readonly serverApiKey?: () => Promise<string | undefined>;
  /** Backend `remote`: ends connecting (the server's first requests, a busy server's waits) with CancelledError. */
  readonly signal?: AbortSignal;
}

export interface LoadedEngine {
  readonly engine: Engine;
  /** Set when the requested backend was not used, saying why. */
  readonly notice?: string;
}

function isCoreMLModelPath(path: string): boolean {
  return /\.(mlpackage|mlmodelc)\/?$/i.test(path);
}

interface CoreMLModule {
  coreMLAvailability(): { available: true } | { available: false; reason: string };
  loadCoreMLEngine(options: { modelPath: string; computeUnits: ComputeUnitsChoice }): Promise<Engine>;
}

async function loadCoreMLModule(): Promise<CoreMLModule | undefined> {
  try {
    // Resolved at runtime so the llama.cpp path works even where the addon is absent.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require("./coreml/index") as CoreMLModule;
  } catch {
    return undefined;
  }
}

export async function loadEngine(request: EngineRequest, hooks: LoadHooks = {}): Promise<LoadedEngine> {
  if (request.backend === "remote") {
    // The server decodes (and may speculate itself): no speculative engine around it.
    if (!request.server?.url) throw new BackendUnavailableError("The remote backend needs the server's URL (statefulChat.server.url, --server URL).");
    const engine = await RemoteEngine.connect({ server: request.server, modelPath: request.modelPath, contextSize: request.contextSize, onStatus: hooks.onServerStatus, apiKey: hooks.serverApiKey, signal: hooks.signal });
    return { engine };
  }
  const loaded = await loadTarget(request);
  return { ...loaded, engine: await withSpeculation(loaded.engine, request, (path) => loadLlama(request, path)) };
}

async function loadTarget(request: EngineRequest): Promise<LoadedEngine> {
  const coreMLModel = isCoreMLModelPath(request.modelPath);
  const wantsCoreML = request.backend === "coreml" || (request.backend === "auto" && coreMLModel);
  if (wantsCoreML) {
    const coreml = await loadCoreMLModule();
    const availability = coreml?.coreMLAvailability() ?? { available: false as const, reason: "the Core ML backend is not built" };
    if (coreml && availability.available && coreMLModel) {
      const engine = await coreml.loadCoreMLEngine({
        modelPath: request.modelPath,
        computeUnits: request.computeUnits ?? "auto",
      });
      return { engine };
    }
    const reason = availability.available ? "the model is not a Core ML model (.mlpackage or .mlmodelc)" : availability.reason;
    const ggufPath = coreMLModel ? request.fallbackModelPath : request.modelPath;
    if (!ggufPath) throw new BackendUnavailableError(`Core ML backend unavailable: ${reason}`);
    const engine = await loadLlama(request, ggufPath);
    const notice = `Core ML backend unavailable (${reason}); using llama.cpp with ${engine.info.modelName}`;
    return { engine, notice: engine.notice ? `${notice}. ${engine.notice}` : notice };
  }
  const engine = await loadLlama(request, request.modelPath);
  return { engine, notice: engine.notice };
}

function loadLlama(request: EngineRequest, modelPath: string): Promise<LlamaEngine> {
  return LlamaEngine.load({
    modelPath,
    contextSize: request.contextSize,
    threads: request.threads,
    threadCalibrationFile: request.threadCalibrationFile,
    gpu: request.gpu,
    gpuLayers: request.gpuLayers,
  });
}

/**
 * A model's tokenizer without its weights, for the host side of an engine process: the
 * Tokenizer contract is synchronous, so tokenizing stays where the ledger is. llama.cpp loads
 * the GGUF's vocabulary only (no tensors are mapped); Core ML reads its JSON files.
 */
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

/** What the CUDA fetch on first use (gpu-binaries/) needs to know of llama.cpp's runtime. */
export const llamaCppRuntimeFacts = {
  /** Where node-llama-cpp is installed (fetched packages are linked into its node_modules), or undefined. */
  packageDir: (): string | undefined => nodeLlamaCppPackageDir(),
  /** Whether node-llama-cpp finds an NVIDIA driver here (then a CUDA binary can serve). */
  nvidiaDriverFound: async (): Promise<boolean> => (await (await importNodeLlamaCpp()).getLlamaGpuTypes("supported")).includes("cuda"),
};
