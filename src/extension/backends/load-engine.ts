// The one place that picks a backend. `auto` uses Core ML for Core ML models on macOS 15+
// and llama.cpp otherwise; a choice that cannot run here falls back visibly (a notice).
// `remote` is never chosen by `auto`: it needs a server (statefulChat.server.url).

import { BACKEND_NAMES, type Engine } from "../core/engine";
import { BackendUnavailableError } from "../core/errors";
import type { SpeculativeMode } from "../core/speculation/modes";
import type { GpuChoice, GpuLayersChoice } from "./llamacpp/gpu-choice";
import { LlamaEngine } from "./llamacpp/llama-engine";
import type { RemoteServerOptions } from "./remote/options";
import { RemoteEngine } from "./remote/remote-engine";
import type { ServerStatusListener } from "./remote/status";
import { withSpeculation } from "./speculation";

/** The one list of backend choices (setting statefulChat.backend, CLI --backend, the engine request). */
export const BACKEND_CHOICES = ["auto", ...BACKEND_NAMES] as const;
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

export function isBackendChoice(value: unknown): value is BackendChoice {
  return typeof value === "string" && (BACKEND_CHOICES as readonly string[]).includes(value);
}
export type ComputeUnitsChoice = "cpuAndNeuralEngine" | "all" | "cpuAndGPU" | "cpuOnly" | "auto";

export interface EngineRequest {
  readonly modelPath: string;
  readonly backend: BackendChoice;
  readonly contextSize?: number;
  readonly threads?: number;
  /** Where the measured default thread count is remembered (llama.cpp). */
  readonly threadCalibrationFile?: string;
  readonly computeUnits?: ComputeUnitsChoice;
  /** A GGUF to use when a Core ML model cannot run on this machine. */
  readonly fallbackModelPath?: string;
  /** Speculative decoding (default `auto`: prompt lookup, and the draft model when given, where it pays). */
  readonly speculative?: SpeculativeMode;
  /** A small model with the same vocabulary that drafts tokens (`draft` and `auto`). */
  readonly draftModelPath?: string;
  /** llama.cpp: where the layers run (statefulChat.gpu, CLI --gpu). Defaults to `off` here; the settings and the CLI default to `auto`. */
  readonly gpu?: GpuChoice;
  /** llama.cpp: layers on the GPU, `auto` (default: as many as fit with room for the chats' KV caches) or a number. */
  readonly gpuLayers?: GpuLayersChoice;
  /** Backend `remote`: the inference server (its URL, kind and API key). `modelPath` is then the local tokenizer's model. */
  readonly server?: RemoteServerOptions;
}

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

export function isCoreMLModelPath(path: string): boolean {
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
