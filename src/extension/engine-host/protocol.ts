// The typed IPC protocol between the extension host (or CLI) and an engine host process.
// Requests carry ids; every request gets exactly one reply (ok or error). Messages are
// validated on arrival on both sides, like the webview protocol: the other side may be a
// crashed, half-written or foreign process. Tokens travel as plain number arrays; logits
// never leave the engine process.

import { isBackendChoice, isComputeUnitsChoice, isGpuChoice, isGpuLayersChoice, isServerKindChoice, type EngineRequest } from "../core/engine-options";
import { BACKEND_NAMES, type BackendName, type CacheProbe, type EnginePlacement, type SamplingOptions, type SpeculationCounts } from "../core/engine";
import { isSpeculativeMode } from "../core/speculation/modes";
import type { ErrorCode } from "../core/errors";

/** What the engine process loads: the same request as loading in this process. */
export type LoadRequest = EngineRequest;


export interface LoadedInfo {
  readonly backend: BackendName;
  readonly modelPath: string;
  readonly modelName: string;
  readonly capacity: number;
  readonly details: string;
  readonly chatTemplate: string;
  readonly notice?: string;
  /** The engine's states have generateReply (Engine.replyLoop). */
  readonly replyLoop?: boolean;
  /** Where the model runs (EngineInfo.placement). */
  readonly placement?: EnginePlacement;
}

export type Request =
  | { readonly op: "load"; readonly load: LoadRequest }
  | { readonly op: "createState" }
  | { readonly op: "evaluate"; readonly state: number; readonly tokens: readonly number[]; readonly sample?: SamplingOptions }
  | { readonly op: "evaluateTopK"; readonly state: number; readonly tokens: readonly number[]; readonly k: number }
  | { readonly op: "truncate"; readonly state: number; readonly length: number }
  | { readonly op: "reset"; readonly state: number }
  | { readonly op: "disposeState"; readonly state: number }
  | { readonly op: "saveSnapshot"; readonly state: number; readonly path: string; readonly tokens: readonly number[] }
  | { readonly op: "loadSnapshot"; readonly state: number; readonly path: string }
  /** KvState.saveSnapshotDelta / appendSnapshot: incremental snapshots (a backend without them answers engine_failed). */
  | { readonly op: "saveSnapshotDelta"; readonly state: number; readonly path: string; readonly from: number; readonly tokens: readonly number[] }
  | { readonly op: "appendSnapshot"; readonly state: number; readonly path: string }
  /** KvState.probeCache: the engine's own count of what the state's cache holds. */
  | { readonly op: "probeCache"; readonly state: number }
  /** KvState.generateReply: sampled tokens stream back as TokenEvents before the reply. */
  | { readonly op: "generateReply"; readonly state: number; readonly tokens: readonly number[]; readonly sample: SamplingOptions; readonly maxTokens: number };

export type RequestOp = Request["op"];

/** Replies per operation: `length` is the state's token count after the call. */
export interface ReplyOf {
  load: LoadedInfo;
  createState: { readonly state: number; readonly capacity: number };
  evaluate: { readonly length: number; readonly next?: number };
  evaluateTopK: { readonly length: number; readonly top: Array<readonly [number, number]> };
  truncate: { readonly length: number };
  reset: { readonly length: number };
  disposeState: Record<string, never>;
  saveSnapshot: { readonly bytes: number };
  loadSnapshot: { readonly length: number; readonly tokens: readonly number[] };
  saveSnapshotDelta: { readonly bytes: number };
  /** `tokens`: the ones the delta added; `length`: the state's count after it (0 when a failed append emptied it, reported as an error instead). */
  appendSnapshot: { readonly length: number; readonly tokens: readonly number[] };
  /** `probe` absent when the backend has none or cannot tell now. */
  probeCache: { readonly probe?: CacheProbe };
  /** `speculation`: what drafting did for this reply, when the state decodes speculatively; `serverCached`: a remote state's server-reported cache hit. */
  generateReply: { readonly length: number; readonly speculation?: SpeculationCounts; readonly serverCached?: number };
}

export interface WireError {
  readonly code: ErrorCode;
  readonly message: string;
  /** CapacityError's figures, so the host can rebuild the typed error. */
  readonly capacity?: { readonly position: number; readonly requested: number; readonly capacity: number };
}

/** A token sampled by the generateReply request `id`, sent before its reply. */
interface TokenEvent {
  readonly id: number;
  readonly token: number;
}

/**
 * Sent by the engine process every HEARTBEAT_INTERVAL_MS while it lives, so the host can tell
 * a long request (a model load, a big prefill chunk) from a process that stopped answering.
 */
interface Heartbeat {
  readonly heartbeat: number;
}

export const HEARTBEAT_INTERVAL_MS = 2_000;

export type ToHost =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: WireError }
  | TokenEvent
  | Heartbeat;

/** A request, or a cancel of the running generateReply request `cancel` (no reply). */
export type ToEngine = { readonly id: number; readonly request: Request } | { readonly cancel: number };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;
const isTokens = (v: unknown): v is number[] => Array.isArray(v) && v.length <= 1 << 20 && v.every(isInt);
const isOptionalNumber = (v: unknown) => v === undefined || (typeof v === "number" && Number.isFinite(v));
const isOptionalString = (v: unknown) => v === undefined || typeof v === "string";

function isSampling(v: unknown): v is SamplingOptions {
  return isObject(v) && typeof v.temperature === "number" && v.temperature >= 0 && isOptionalNumber(v.topP) && isOptionalNumber(v.topK) && isOptionalNumber(v.seed);
}

function isPlacement(v: unknown): v is EnginePlacement {
  return (
    isObject(v) &&
    typeof v.compute === "string" &&
    typeof v.device === "string" &&
    isInt(v.layersOffloaded) &&
    isInt(v.layers) &&
    isInt(v.threads) &&
    typeof v.summary === "string"
  );
}

function isCacheProbe(v: unknown): v is CacheProbe {
  return (
    isObject(v) &&
    isInt(v.held) &&
    (v.firstPosition === undefined || (Number.isInteger(v.firstPosition) && (v.firstPosition as number) >= -1)) &&
    typeof v.source === "string" &&
    v.source.length <= 200
  );
}

function isSpeculationCounts(v: unknown): v is SpeculationCounts {
  return isObject(v) && isInt(v.drafted) && isInt(v.accepted) && isInt(v.steps);
}

/** Backend `remote`'s server: an http(s) URL string (checked again when connecting), a known kind. */
function isServerOptions(v: unknown): boolean {
  return (
    isObject(v) &&
    typeof v.url === "string" &&
    v.url.length > 0 &&
    v.url.length <= 2048 &&
    /^https?:\/\//i.test(v.url) &&
    (v.kind === undefined || isServerKindChoice(v.kind)) &&
    isOptionalString(v.apiKey) &&
    (v.busyWaitMs === undefined || isInt(v.busyWaitMs))
  );
}

function isLoadRequest(v: unknown): v is LoadRequest {
  return (
    isObject(v) &&
    typeof v.modelPath === "string" &&
    isBackendChoice(v.backend) &&
    (v.backend === "remote" ? isServerOptions(v.server) : v.server === undefined) &&
    isOptionalNumber(v.contextSize) &&
    isOptionalNumber(v.threads) &&
    isOptionalString(v.threadCalibrationFile) &&
    (v.computeUnits === undefined || isComputeUnitsChoice(v.computeUnits)) &&
    isOptionalString(v.fallbackModelPath) &&
    (v.speculative === undefined || isSpeculativeMode(v.speculative)) &&
    isOptionalString(v.draftModelPath) &&
    (v.gpu === undefined || isGpuChoice(v.gpu)) &&
    (v.gpuLayers === undefined || isGpuLayersChoice(v.gpuLayers))
  );
}

function isRequest(v: unknown): v is Request {
  if (!isObject(v)) return false;
  switch (v.op) {
    case "load":
      return isLoadRequest(v.load);
    case "createState":
      return true;
    case "evaluate":
      return isInt(v.state) && isTokens(v.tokens) && (v.sample === undefined || isSampling(v.sample));
    case "evaluateTopK":
      return isInt(v.state) && isTokens(v.tokens) && isInt(v.k);
    case "truncate":
      return isInt(v.state) && isInt(v.length);
    case "reset":
    case "disposeState":
    case "probeCache":
      return isInt(v.state);
    case "saveSnapshot":
      return isInt(v.state) && typeof v.path === "string" && v.path.length > 0 && isTokens(v.tokens);
    case "loadSnapshot":
    case "appendSnapshot":
      return isInt(v.state) && typeof v.path === "string" && v.path.length > 0;
    case "saveSnapshotDelta":
      return isInt(v.state) && typeof v.path === "string" && v.path.length > 0 && isInt(v.from) && isTokens(v.tokens) && v.tokens.length > 0;
    case "generateReply":
      return isInt(v.state) && isTokens(v.tokens) && v.tokens.length > 0 && isSampling(v.sample) && isInt(v.maxTokens) && v.maxTokens > 0;
    default:
      return false;
  }
}

/**
 * The id of a message that is not a valid request but carries one, so the engine process can
 * answer it with an error instead of leaving the host waiting (invariant 8).
 */
export function requestIdOf(raw: unknown): number | undefined {
  return isObject(raw) && isInt(raw.id) ? raw.id : undefined;
}

/** A request as the engine process receives it, or undefined when malformed. */
export function parseToEngine(raw: unknown): ToEngine | undefined {
  if (isObject(raw) && isInt(raw.cancel) && raw.id === undefined) return { cancel: raw.cancel };
  if (!isObject(raw) || !isInt(raw.id) || !isRequest(raw.request)) return undefined;
  return { id: raw.id, request: raw.request };
}

/** A reply as the host receives it, or undefined when malformed. Values are checked per operation by the caller. */
export function parseToHost(raw: unknown): ToHost | undefined {
  if (isObject(raw) && isInt(raw.heartbeat) && raw.id === undefined) return { heartbeat: raw.heartbeat };
  if (!isObject(raw) || !isInt(raw.id)) return undefined;
  if (raw.ok === undefined && isInt(raw.token)) return { id: raw.id, token: raw.token };
  if (raw.ok === true) return { id: raw.id, ok: true, value: raw.value };
  if (raw.ok === false && isObject(raw.error) && typeof raw.error.code === "string" && typeof raw.error.message === "string") {
    const cap = raw.error.capacity;
    const capacity = isObject(cap) && isInt(cap.position) && isInt(cap.requested) && isInt(cap.capacity)
      ? { position: cap.position, requested: cap.requested, capacity: cap.capacity }
      : undefined;
    return { id: raw.id, ok: false, error: { code: raw.error.code as ErrorCode, message: raw.error.message, capacity } };
  }
  return undefined;
}

/** Per-operation checks of a reply's value (the engine process is not trusted blindly). */
export const replyChecks: { [K in RequestOp]: (v: unknown) => v is ReplyOf[K] } = {
  load: (v): v is LoadedInfo =>
    isObject(v) &&
    (BACKEND_NAMES as readonly unknown[]).includes(v.backend) &&
    typeof v.modelPath === "string" &&
    typeof v.modelName === "string" &&
    isInt(v.capacity) &&
    typeof v.details === "string" &&
    typeof v.chatTemplate === "string" &&
    isOptionalString(v.notice) &&
    (v.replyLoop === undefined || typeof v.replyLoop === "boolean") &&
    (v.placement === undefined || isPlacement(v.placement)),
  createState: (v): v is ReplyOf["createState"] => isObject(v) && isInt(v.state) && isInt(v.capacity),
  evaluate: (v): v is ReplyOf["evaluate"] => isObject(v) && isInt(v.length) && (v.next === undefined || isInt(v.next)),
  evaluateTopK: (v): v is ReplyOf["evaluateTopK"] =>
    isObject(v) && isInt(v.length) && Array.isArray(v.top) && v.top.every((p) => Array.isArray(p) && p.length === 2 && isInt(p[0]) && typeof p[1] === "number"),
  truncate: (v): v is ReplyOf["truncate"] => isObject(v) && isInt(v.length),
  reset: (v): v is ReplyOf["reset"] => isObject(v) && isInt(v.length),
  disposeState: (v): v is ReplyOf["disposeState"] => isObject(v),
  saveSnapshot: (v): v is ReplyOf["saveSnapshot"] => isObject(v) && isInt(v.bytes),
  loadSnapshot: (v): v is ReplyOf["loadSnapshot"] => isObject(v) && isInt(v.length) && isTokens(v.tokens),
  saveSnapshotDelta: (v): v is ReplyOf["saveSnapshotDelta"] => isObject(v) && isInt(v.bytes),
  appendSnapshot: (v): v is ReplyOf["appendSnapshot"] => isObject(v) && isInt(v.length) && isTokens(v.tokens),
  probeCache: (v): v is ReplyOf["probeCache"] => isObject(v) && (v.probe === undefined || isCacheProbe(v.probe)),
  generateReply: (v): v is ReplyOf["generateReply"] =>
    isObject(v) && isInt(v.length) && (v.speculation === undefined || isSpeculationCounts(v.speculation)) && (v.serverCached === undefined || isInt(v.serverCached)),
};
