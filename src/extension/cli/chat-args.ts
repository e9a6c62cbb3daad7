// `stateful-chat chat` flags. These are a public contract: keep them stable.

import { parseArgs } from "node:util";
import {
  BACKEND_CHOICES,
  COMPUTE_UNITS_CHOICES,
  DEFAULT_CONTEXT_SIZE,
  GPU_CHOICES,
  SERVER_KINDS,
  type BackendChoice,
  type ComputeUnitsChoice,
  type GpuChoice,
  type GpuLayersChoice,
  type ServerKindChoice,
} from "../core/engine-options";
import type { HistoryRendering } from "../core/conversation-prompt";
import { SPECULATIVE_MODES, type SpeculativeMode } from "../core/speculation/modes";
import type { OverflowStrategy, TurnStrategy } from "../core/stats";

export interface ChatArgs {
  readonly model?: string;
  readonly ctx: number;
  readonly threads?: number;
  readonly maxTokens: number;
  readonly temperature: number;
  readonly strategy: TurnStrategy;
  readonly overflow: OverflowStrategy;
  readonly history: HistoryRendering;
  readonly json: boolean;
  readonly system?: string;
  readonly backend: BackendChoice;
  readonly computeUnits: ComputeUnitsChoice;
  readonly seed?: number;
  readonly speculative: SpeculativeMode;
  readonly draftModel?: string;
  /** Run the model in this process instead of an engine host process (benchmarks compare both). */
  readonly inProcess: boolean;
  /** `--backend remote`: the inference server's URL (the API key comes from STATEFUL_CHAT_SERVER_API_KEY, never a flag). */
  readonly server?: string;
  readonly serverKind: ServerKindChoice;
  /** llama.cpp: where the layers run (`auto` default: a GPU when one is usable, else the CPU). */
  readonly gpu: GpuChoice;
  /** llama.cpp: layers on the GPU, `auto` or a number (0: the CPU). */
  readonly gpuLayers: GpuLayersChoice;
}

export class UsageError extends Error {}

export function positiveInt(name: string, value: string | undefined, fallback?: number): number | undefined {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive integer, got "${value}"`);
  return n;
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} must be one of ${allowed.join(", ")}, got "${value}"`);
  }
  return value as T;
}

export const CHAT_USAGE = `Usage: stateful-chat chat [--model PATH] [--ctx N] [--threads N] [--max-tokens N]
                          [--temperature T] [--strategy stateful|naive] [--json]
                          [--overflow summarize|truncate] [--system TEXT] [--seed N]
                          [--backend auto|llamacpp|coreml] [--compute-units UNITS]
                          [--history template|asGenerated] [--in-process]
                          [--speculative auto|off|lookup|draft] [--draft-model PATH]
                          [--backend remote --server URL [--server-kind auto|llama-server|vllm|sglang]]
                          [--gpu auto|off|metal|cuda|vulkan] [--gpu-layers auto|N]
Reads one user message per line from stdin; "/reset" resets the conversation; EOF ends.
The model runs in its own engine process (a crash there ends the turn with engine_crashed
and the next turn re-prefills); --in-process runs it in the CLI's process.
--backend remote sends each turn to an inference server as token ids (the model at --model
is the local tokenizer and chat template, checked against the server's); the API key, if
the server needs one, is read from STATEFUL_CHAT_SERVER_API_KEY.
--gpu picks where llama.cpp runs (auto: Metal, CUDA or Vulkan when usable, else the CPU, saying
why when a GPU was asked for or found); --gpu-layers how many layers go there.`;

export function parseChatArgs(argv: readonly string[]): ChatArgs {
  let parsed;
  try {
    parsed = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      model: { type: "string" },
      ctx: { type: "string" },
      threads: { type: "string" },
      "max-tokens": { type: "string" },
      temperature: { type: "string" },
      strategy: { type: "string" },
      overflow: { type: "string" },
      history: { type: "string" },
      json: { type: "boolean", default: false },
      system: { type: "string" },
      backend: { type: "string" },
      "compute-units": { type: "string" },
      seed: { type: "string" },
      "in-process": { type: "boolean", default: false },
      speculative: { type: "string" },
      "draft-model": { type: "string" },
      server: { type: "string" },
      "server-kind": { type: "string" },
      gpu: { type: "string" },
      "gpu-layers": { type: "string" },
    },
  });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const values = parsed.values;
  const temperature = values.temperature === undefined ? 0 : Number(values.temperature);
  if (!Number.isFinite(temperature) || temperature < 0) {
    throw new UsageError(`--temperature must be a number >= 0, got "${values.temperature}"`);
  }
  return {
    model: values.model,
    ctx: positiveInt("ctx", values.ctx, DEFAULT_CONTEXT_SIZE)!,
    threads: positiveInt("threads", values.threads),
    maxTokens: positiveInt("max-tokens", values["max-tokens"], 256)!,
    temperature,
    strategy: oneOf("strategy", values.strategy, ["stateful", "naive"] as const, "stateful"),
    overflow: oneOf("overflow", values.overflow, ["summarize", "truncate"] as const, "summarize"),
    history: oneOf("history", values.history, ["template", "asGenerated"] as const, "template"),
    json: values.json ?? false,
    system: values.system,
    backend: oneOf("backend", values.backend, BACKEND_CHOICES, "auto"),
    computeUnits: oneOf("compute-units", values["compute-units"], COMPUTE_UNITS_CHOICES, "auto"),
    seed: values.seed === undefined ? undefined : positiveInt("seed", values.seed),
    inProcess: values["in-process"] ?? false,
    speculative: oneOf("speculative", values.speculative, SPECULATIVE_MODES, "auto"),
    draftModel: values["draft-model"],
    ...serverArgs(values.backend, values.server, values["server-kind"]),
    gpu: oneOf("gpu", values.gpu, GPU_CHOICES, "auto"),
    gpuLayers: gpuLayersArg(values["gpu-layers"]),
  };
}

function gpuLayersArg(value: string | undefined): GpuLayersChoice {
  if (value === undefined || value === "auto") return "auto";
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--gpu-layers must be auto or a whole number >= 0, got "${value}"`);
  return n;
}

function serverArgs(backend: string | undefined, server: string | undefined, kind: string | undefined): { server?: string; serverKind: ServerKindChoice } {
  const serverKind = oneOf("server-kind", kind, SERVER_KINDS, "auto");
  if (backend === "remote") {
    if (!server) throw new UsageError("--backend remote needs --server URL (e.g. --server http://gpu-box:8080)");
    if (!/^https?:\/\/[^/]/i.test(server)) throw new UsageError(`--server must be an http:// or https:// URL, got "${server}"`);
    return { server, serverKind };
  }
  if (server !== undefined || kind !== undefined) throw new UsageError("--server and --server-kind go with --backend remote");
  return { serverKind };
}
