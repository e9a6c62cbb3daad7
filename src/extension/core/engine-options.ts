// What an engine is loaded with, once for every layer: the request (EngineRequest), the user's
// choices in it (each one `as const` list, its type and its guard: settings, CLI flags and the
// engine process's protocol check against them), the defaults of its options and the rule that
// turns a requested context size into the engine's capacity. The backends, the engine process,
// the CLI and the shell read them from here; only backends/load-engine.ts acts on them.

import { BACKEND_NAMES } from "./engine";
import type { SpeculativeMode } from "./speculation/modes";

/** Tokens per session when nothing asks for more or less (statefulChat.contextSize's default, CLI --ctx's). */
export const DEFAULT_CONTEXT_SIZE = 4096;
/** llama.cpp's contexts are whole multiples of this many tokens. */
export const CONTEXT_STEP = 256;
/** Tokens one llama.cpp batch (a prompt chunk, a verify batch) holds at most: its logits are most of a context's compute buffer. */
export const MAX_BATCH = 512;
/** KV caches (chats open at once) that `auto` GPU layers leave device memory for. */
export const DEFAULT_RESERVED_STATES = 4;

/** The context size asked for: `contextSize`, or the default. */
export function requestedContextSize(contextSize: number | undefined): number {
  return contextSize ?? DEFAULT_CONTEXT_SIZE;
}

/**
 * The capacity of an engine loaded with `contextSize` (the default when undefined): capped at
 * the model's training context when known, rounded up to a whole CONTEXT_STEP (as llama.cpp
 * allocates it). The llama.cpp engine holds this; the chat provider plans with it.
 */
export function engineCapacity(contextSize: number | undefined, trainContext?: number): number {
  const requested = requestedContextSize(contextSize);
  const size = trainContext === undefined ? requested : Math.min(requested, trainContext);
  return Math.ceil(size / CONTEXT_STEP) * CONTEXT_STEP;
}

/** The one list of backend choices (setting statefulChat.backend, CLI --backend, the engine request). */
export const BACKEND_CHOICES = ["auto", ...BACKEND_NAMES] as const;
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

export function isBackendChoice(value: unknown): value is BackendChoice {
  return typeof value === "string" && (BACKEND_CHOICES as readonly string[]).includes(value);
}

/** The one list of Core ML compute units (setting statefulChat.computeUnits, CLI --compute-units). */
export const COMPUTE_UNITS_CHOICES = ["cpuAndNeuralEngine", "all", "cpuAndGPU", "cpuOnly", "auto"] as const;
export type ComputeUnitsChoice = (typeof COMPUTE_UNITS_CHOICES)[number];

export function isComputeUnitsChoice(value: unknown): value is ComputeUnitsChoice {
  return typeof value === "string" && (COMPUTE_UNITS_CHOICES as readonly string[]).includes(value);
}

/** The one list of GPU choices for llama.cpp: setting statefulChat.gpu, CLI --gpu, the engine request. */
export const GPU_CHOICES = ["auto", "off", "metal", "cuda", "vulkan"] as const;
export type GpuChoice = (typeof GPU_CHOICES)[number];

export function isGpuChoice(value: unknown): value is GpuChoice {
  return typeof value === "string" && (GPU_CHOICES as readonly string[]).includes(value);
}

/** `auto` (as many layers as fit with room for the chats' KV caches) or a layer count. */
export type GpuLayersChoice = "auto" | number;

export function isGpuLayersChoice(value: unknown): value is GpuLayersChoice {
  return value === "auto" || (typeof value === "number" && Number.isInteger(value) && value >= 0);
}

/** The one list of server kinds (setting statefulChat.server.kind, CLI --server-kind, the engine request). */
export const SERVER_KINDS = ["auto", "llama-server", "vllm", "sglang"] as const;
export type ServerKindChoice = (typeof SERVER_KINDS)[number];

export function isServerKindChoice(value: unknown): value is ServerKindChoice {
  return typeof value === "string" && (SERVER_KINDS as readonly string[]).includes(value);
}

/** What the remote backend connects to (the API key is kept by the shell in VS Code's SecretStorage, never in settings). */
export interface RemoteServerOptions {
  /** Base URL of the server, e.g. `http://gpu-box:8080` (a path prefix behind a proxy is kept). */
  readonly url: string;
  /** `auto` (default) asks the server: llama-server answers `/props`, vLLM and SGLang name themselves in `/v1/models`. */
  readonly kind?: ServerKindChoice;
  /** Sent as `Authorization: Bearer …` to the URL's origin only (see backends/remote/http.ts). */
  readonly apiKey?: string;
  /** How long a turn waits, retrying, while the server answers 429/503 (default 120 s). */
  readonly busyWaitMs?: number;
}

/** Which model to load and how: what backends/load-engine.ts takes, in process or sent to an engine process. */
export interface EngineRequest {
  readonly modelPath: string;
  readonly backend: BackendChoice;
  /** Tokens per session (DEFAULT_CONTEXT_SIZE when undefined; the capacity follows by engineCapacity). */
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
