// The context size of the chat provider's engines (VS Code's Chat, vscode.lm, @stateful). Not
// the panels' statefulChat.contextSize (DEFAULT_CONTEXT_SIZE by default): VS Code's Agent mode alone sends
// ~16k tokens of instructions and tool schemas, so `auto` (statefulChat.chatProvider.contextSize)
// takes the model's own training context, capped by what this machine's memory holds for the
// pool's sessions. No `vscode` here: the shell hands in the settings and the model's header.
//
// Memory: every pooled session is a llama.cpp context of its own with a KV cache of the whole
// context size, allocated (and cleared, so really resident) when the session is created; the
// pool creates up to statefulChat.chatProvider.sessions of them. So the plan is
//   sessions × (KV bytes per token × context + compute buffer) ≤ budget,
//   budget = min(available − weights − headroom, half the machine's memory),
// with the weights counted in full even when a panel's engine already has the same file: each
// engine process keeps its own repacked CPU copy of most of them (provider-settings.ts has the
// figures), and Linux counts the mapped file's pages as available. Against node-llama-cpp's own
// estimate for Qwen2.5-Coder-1.5B at 8,192 and 32,768 tokens: its KV cache is 28,672 bytes per
// token and the rest of a context ~300 MiB, almost all of it the logits of a 512-token batch
// (vocabulary × 512 × 4 bytes), which is what computeBytes() counts. A draft model's caches
// (speculative decoding with statefulChat.draftModelPath) and GPU placement are not in the
// plan: on a GPU the caches go to device memory, whose own check (llama-engine.ts) refuses a
// session that does not fit, with a typed error.
//
// KV quantization is not used. It would halve the cache (q8_0) where memory is what caps the
// context, but node-llama-cpp marks its KV cache types experimental ("may crash the process";
// not for end users to set), quantized V needs flash attention, the engine process protocol
// and the KV snapshot files (whose metadata checks the context size, not the cache type) would
// each need the type added, and invariant 1's agreement of a cached session with a fresh
// prefill is shown for F16 caches only. Where the model's own context fits in memory (the
// common case: 32k tokens of the 1.5B is 896 MiB per session) it would save memory nobody
// needs; where it does not, fewer sessions (statefulChat.chatProvider.sessions) buy the same.
//
// The plan is made once per model and settings (ProviderContexts), never again as free memory
// changes: the context size is part of the engine's key (engine-registry.ts), so a plan that
// moved with free memory would reload the model, and the size VS Code was told (maxInputTokens)
// would no longer be the engine's.

import { freemem, platform, totalmem } from "node:os";
import { CONTEXT_STEP, engineCapacity, MAX_BATCH } from "../../core/engine-options";
import type { KvGeometry } from "../../models/kv-geometry";
import type { ProviderContextSetting } from "../settings/settings";


export interface MemoryFigures {
  /** Memory a new allocation can have without swapping (free plus reclaimable cache). */
  readonly availableBytes: number;
  readonly totalBytes: number;
}

export interface ProviderContextInput {
  /** statefulChat.chatProvider.contextSize. */
  readonly setting: ProviderContextSetting;
  /** statefulChat.contextSize: the floor (what the provider used before) and the remote backend's size. */
  readonly panelContextSize: number;
  /** Backend `remote`: the server's slots hold the caches, not this machine. */
  readonly remote: boolean;
  /** The model's training context (`<arch>.context_length`). */
  readonly trainContext?: number;
  readonly kv?: KvGeometry;
  /** The model file's size (its weights). */
  readonly weightsBytes: number;
  /** statefulChat.chatProvider.sessions: KV caches the pool may hold at once. */
  readonly sessions: number;
}

/** What decided the context size. */
type ContextLimit = "model" | "memory" | "setting" | "panel";

export interface ProviderContext {
  /** The context size the provider's engine is loaded with (in place of statefulChat.contextSize). */
  readonly contextSize: number;
  /** What that engine holds: engineCapacity (core/engine-options.ts) of contextSize. */
  readonly capacity: number;
  readonly limit: ContextLimit;
  /** Why, in words (the log and a refused request say it). */
  readonly why: string;
}

/** Left to VS Code, the extension host and the engine process itself. */
export const HEADROOM_BYTES = 1024 ** 3;
/** The provider's caches never plan on more than this share of the machine's memory. */
const MAX_SHARE_OF_TOTAL = 0.5;
/** A vocabulary the header does not count is taken to be this large (Qwen2.5's, among the largest). */
const DEFAULT_VOCAB = 152_064;
/** Besides the logits: the activations of a batch, a few MiB for these models. */
const COMPUTE_MARGIN_BYTES = 32 * 1024 ** 2;

/** A context's memory besides its KV cache: the compute buffer, mostly a batch's logits. */
export function computeBytes(kv: KvGeometry): number {
  return (kv.vocabSize ?? DEFAULT_VOCAB) * MAX_BATCH * 4 + COMPUTE_MARGIN_BYTES;
}

/** The most context tokens (a multiple of CONTEXT_STEP, maybe 0) each of `sessions` caches can have in memory. */
export function tokensFitting(input: Pick<ProviderContextInput, "kv" | "weightsBytes" | "sessions"> & { readonly kv: KvGeometry }, memory: MemoryFigures): number {
  const budget = Math.min(memory.availableBytes - input.weightsBytes - HEADROOM_BYTES, memory.totalBytes * MAX_SHARE_OF_TOTAL);
  const perSession = budget / Math.max(1, input.sessions) - computeBytes(input.kv);
  if (perSession <= 0) return 0;
  return Math.floor(perSession / input.kv.bytesPerToken / CONTEXT_STEP) * CONTEXT_STEP;
}

const count = (n: number) => n.toLocaleString("en-US");
const mib = (bytes: number) => `${count(Math.round(bytes / 1024 ** 2))} MiB`;

export function planProviderContext(input: ProviderContextInput, memory: MemoryFigures): ProviderContext {
  const train = input.trainContext;
  const plan = (contextSize: number, limit: ContextLimit, why: string): ProviderContext => ({ contextSize, capacity: engineCapacity(contextSize, train), limit, why });
  if (input.setting !== "auto") {
    return plan(input.setting, "setting", train !== undefined && input.setting > train ? `the model's own context; statefulChat.chatProvider.contextSize asks ${count(input.setting)}` : "statefulChat.chatProvider.contextSize");
  }
  // A server's slots decide there (the remote engine takes the smaller); their size is known only once connected.
  if (input.remote) return plan(input.panelContextSize, "panel", "statefulChat.contextSize, with the inference server's slots as the limit");
  if (train === undefined || input.kv === undefined) {
    return plan(input.panelContextSize, "panel", "statefulChat.contextSize: the model's header gives no context length or KV cache size to plan with");
  }
  const fits = tokensFitting({ ...input, kv: input.kv }, memory);
  if (fits >= train) return plan(train, "model", "the model's own context");
  const floor = Math.min(input.panelContextSize, train);
  const perSession = `${count(input.sessions)} session${input.sessions === 1 ? "" : "s"} × ${count(input.kv.bytesPerToken)} bytes per token`;
  const figures = `${mib(memory.availableBytes)} available, ${mib(memory.totalBytes)} in all, ${mib(input.weightsBytes)} of weights`;
  if (fits <= floor) return plan(floor, "panel", `statefulChat.contextSize: memory holds no more for ${perSession} (${figures})`);
  return plan(fits, "memory", `capped by memory from the model's ${count(train)}: ${perSession} (${figures})`);
}

/**
 * What a request too large for the provider's context is told: its size, the capacity and what
 * decided it, and what to change. "holds N (" is what the e2e test looks for.
 */
export function capacityRefusal(requested: number, modelName: string, context: ProviderContext, trainContext: number | undefined): string {
  const advice: Readonly<Record<ContextLimit, string>> = {
    model: "Pick a model with a larger context",
    memory: "Free some memory, lower statefulChat.chatProvider.sessions (each session keeps a cache of this size) or set statefulChat.chatProvider.contextSize",
    setting: trainContext !== undefined && context.capacity >= trainContext ? "Pick a model with a larger context" : "Raise statefulChat.chatProvider.contextSize (`auto` takes the model's own context where memory allows)",
    panel: "Set statefulChat.chatProvider.contextSize",
  };
  return (
    `This request is ${count(requested)} tokens, and ${modelName} holds ${count(context.capacity)} (${context.why}). ` +
    `${advice[context.limit]}, or ask @stateful, which sends only the conversation.`
  );
}

/** This machine's memory. macOS counts only free pages (libuv), leaving out what it reclaims at once: half the total stands in. */
function systemMemory(): MemoryFigures {
  const total = totalmem();
  // process.availableMemory (Node 20.13+) also honours a container's memory limit.
  const available = typeof process.availableMemory === "function" ? Math.min(process.availableMemory(), freemem()) : freemem();
  return { availableBytes: platform() === "darwin" ? Math.max(available, total / 2) : available, totalBytes: total };
}

/** Plans made once per model and settings (see the module comment): the same answer every time after. */
export class ProviderContexts {
  private readonly plans = new Map<string, ProviderContext>();

  constructor(private readonly memory: () => MemoryFigures = systemMemory) {}

  of(input: ProviderContextInput): ProviderContext {
    const key = JSON.stringify(input);
    let plan = this.plans.get(key);
    if (!plan) {
      plan = planProviderContext(input, this.memory());
      this.plans.set(key, plan);
    }
    return plan;
  }
}
