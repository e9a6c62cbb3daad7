// The native surface of native/ (stateful_chat_coreml.node), declared once, types only,
// and never exported past this backend. test/native/addon-surface.test.ts checks that
// these declarations match what the binary exports.
import { createRequire } from "node:module";
import * as path from "node:path";
import type { ComputeUnitsChoice } from "../../core/engine-options";
import { BackendUnavailableError } from "../../core/errors";

/** The compute units a model is loaded with: a choice (core/engine-options.ts) other than `auto`. */
export type ComputeUnitsName = Exclude<ComputeUnitsChoice, "auto">;

export type NativeQueryLengths =
  | { readonly kind: "range"; readonly min: number; readonly max: number }
  | { readonly kind: "enumerated"; readonly allowed: readonly number[] };

export interface NativeModelInfo {
  readonly capacity: number;
  readonly inputIds: string;
  readonly causalMask: string;
  readonly causalMaskType: "float16" | "float32";
  readonly keyCache: string;
  readonly valueCache: string;
  readonly logits: string;
  readonly queryLengths: NativeQueryLengths;
  readonly details: string;
}

export interface NativeSampling {
  readonly temperature: number;
  readonly topP?: number;
  readonly topK?: number;
  readonly seed?: number;
}

/** Rejections carry a stable `code` (an ErrorCode of core/errors) and, for capacity, the numbers. */
export interface NativeError extends Error {
  readonly code: string;
  readonly position?: number;
  readonly requested?: number;
  readonly capacity?: number;
}

/**
 * KV snapshots of a session, run on its serial worker like evaluate (refused with
 * "concurrent_access" while another call runs). The file (native/src/core/snapshot_format.h)
 * holds a header (magic, format version, each state's name, dtype and shape, the tokens
 * held) and each state's bytes, copied out of and back into the MLState with
 * `-[MLState getMultiArrayForStateNamed:handler:]` (macOS 15). loadState validates the whole
 * header against this model's states and capacity, and the file's exact size, before it
 * touches anything; a mismatch rejects with code "snapshot_mismatch" and leaves the session
 * as it was.
 */
export interface NativeStateSnapshots {
  /** `tokens` (what the state holds, exactly) go into the header; resolves to the file size. */
  saveState(path: string, tokens: Int32Array): Promise<number>;
  /** Resolves to the tokens from the header; the position is their count. */
  loadState(path: string): Promise<Int32Array>;
}

export interface NativeState extends NativeStateSnapshots {
  readonly position: number;
  readonly capacity: number;
  readonly busy: boolean;
  /** Resolves to the sampled next token, or -1 when `sampling` is null. */
  evaluate(tokens: Int32Array, sampling: NativeSampling | null): Promise<number>;
  /** The k most likely next tokens as [token, probability] (softmax of raw logits). */
  evaluateTopK(tokens: Int32Array, k: number): Promise<Array<[number, number]>>;
  /**
   * Appends `tokens` and resolves to one token per input token, sampled from that
   * position's logits row (seeded draws as a single-token evaluate at that position would
   * make). A model whose logits hold only the last position is verified token by token.
   */
  verify(tokens: Int32Array, sampling: NativeSampling): Promise<Int32Array>;
  truncate(length: number): Promise<number>;
  reset(): Promise<number>;
  dispose(): Promise<void>;
}

export interface NativeModel {
  info(): NativeModelInfo;
  createSession(options?: { readonly prefillChunk?: number }): NativeState;
  dispose(): void;
}

export interface NativeLoadOptions {
  readonly computeUnits: ComputeUnitsName;
  readonly prefillFunction?: string;
  readonly decodeFunction?: string;
}

export interface SimulatedModelSpec {
  readonly vocabSize?: number;
  readonly capacity?: number;
  readonly queryLengths?: readonly number[];
  readonly maskType?: "float16" | "float32";
  readonly logitsType?: "float16" | "float32";
  readonly logitsRowPadding?: number;
  readonly predictDelayMs?: number;
  readonly failOnPrediction?: number;
  /** Public-model spellings: inputIds / causalMask / keyCache / valueCache. */
  readonly camelCaseNames?: boolean;
  /** The mask's row axis is fixed at this length (1: [1,1,1,end], as swift-transformers sends). */
  readonly maskRowsFixed?: number;
  /** The mask's last axis is fixed at capacity (fixed-shape functions; needs positionInput). */
  readonly maskWidthFixed?: boolean;
  /** An int32 [1] "position" input carries the write position. */
  readonly positionInput?: boolean;
  /** Logits for the last position only ([1,1,vocab]). */
  readonly lastLogitsOnly?: boolean;
  /** When set, q == 1 is served by a second (decode) function whose mask has this dtype. */
  readonly decodeMaskType?: "float16" | "float32";
  /** The dtype of key_cache / value_cache. Defaults to float16. */
  readonly stateType?: "float16" | "float32";
}

export interface CoreMLAddon {
  readonly surfaceVersion: number;
  platformSupport(): { readonly supported: boolean; readonly reason?: string };
  loadModel(compiledPath: string, options: NativeLoadOptions): Promise<NativeModel>;
  compileModel(packagePath: string, destinationPath: string): Promise<void>;
  /** Native models alive in this process (loaded or simulated); dispose() frees one at once. */
  liveModelCount(): number;
  /**
   * A deterministic stand-in with Core ML's stateful contract, for tests on any OS. Its
   * I/O is validated like a loaded model's (throws code "model_invalid").
   */
  createSimulatedModel(spec: SimulatedModelSpec): NativeModel;
}

// 3: sessions save and load KV snapshots (an older binary would lack them); 4: verify.
export const EXPECTED_SURFACE_VERSION = 4;

/** Where node-gyp puts the binary, relative to this file in src/ and in out/ bundles. */
function candidatePaths(): string[] {
  const fromEnv = process.env.STATEFUL_CHAT_COREML_ADDON;
  const roots = [path.resolve(__dirname, "../../../.."), path.resolve(__dirname, "..")];
  const found = roots.map((root) => path.join(root, "native", "build", "Release", "stateful_chat_coreml.node"));
  return fromEnv ? [fromEnv, ...found] : found;
}

let cached: CoreMLAddon | BackendUnavailableError | undefined;

/** Loads the addon once; returns a typed error (never throws) when it is missing or stale. */
export function loadAddon(): CoreMLAddon | BackendUnavailableError {
  if (cached) return cached;
  const requireNative = createRequire(__filename);
  const failures: string[] = [];
  for (const candidate of candidatePaths()) {
    try {
      const addon = requireNative(candidate) as CoreMLAddon;
      if (addon.surfaceVersion !== EXPECTED_SURFACE_VERSION) {
        failures.push(`${candidate}: surface ${addon.surfaceVersion}, expected ${EXPECTED_SURFACE_VERSION}`);
        continue;
      }
      cached = addon;
      return addon;
    } catch (error) {
      failures.push(`${candidate}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
    }
  }
  // A VSIX packaged without a Mac (every darwin VSIX not made by the release workflow's macOS
  // job) has no addon: say so in words a user of that VSIX can act on, not only a developer.
  cached = new BackendUnavailableError(
    `This installation has no Core ML addon (a VSIX built without a Mac, or a source checkout without npm run build:native); llama.cpp serves instead. Tried: ${failures.join("; ")}`,
  );
  return cached;
}
