// The bounds a model's chat template renders within. A template is code shipped inside a
// model file (a community GGUF, a remote server's metadata): it must not be able to hang or
// exhaust the process that lists and runs models. Real templates need far less: a 128k-token
// conversation renders to about half a million characters in milliseconds.

export interface SandboxLimits {
  /** Wall time one parse or render may take, in ms; the host waits no longer. Defaults to 3,000. */
  readonly timeMs: number;
  /** Time a new sandbox worker may take to start, in ms (a loaded 2-core machine is slow to boot one). Defaults to 30,000. */
  readonly startMs: number;
  /** Longest string any step of a render may produce, in characters. Defaults to 8 Mi. */
  readonly maxStringChars: number;
  /** Most elements `range()` may produce. Defaults to 100,000. */
  readonly maxRangeLength: number;
  /** Heap of the sandbox worker, in MB (best effort: V8 enforces it per worker). Defaults to 256. */
  readonly heapMb: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeMs: 3_000,
  startMs: 30_000,
  maxStringChars: 8 * 1024 * 1024,
  maxRangeLength: 100_000,
  heapMb: 256,
};

/** Why a template was stopped: said to the user with the model's name. */
export class TemplateLimitError extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = "TemplateLimitError";
  }
}
