// One scan of the local model stores serves every caller for a while: VS Code asks a model
// provider for its models often (each Chat view, each model picker, every extension that calls
// vscode.lm.selectChatModels), and a scan walks folders and reads GGUF headers. Concurrent
// callers share the scan in flight; a result is reused until it is `maxAgeMs` old or
// invalidated (a download, Select Model…). Nothing scans until the first caller asks.

import { discoverLocalModels } from "./index";
import type { DiscoveryOptions, DiscoveryResult } from "./types";

export interface DiscoveryCacheOptions {
  /** Default: discoverLocalModels. */
  readonly discover?: (options: DiscoveryOptions) => Promise<DiscoveryResult>;
  readonly options?: DiscoveryOptions;
  /** How long a result is reused (default 30 s). */
  readonly maxAgeMs?: number;
  /** Default Date.now. */
  readonly now?: () => number;
}

export class DiscoveryCache {
  private readonly discover: (options: DiscoveryOptions) => Promise<DiscoveryResult>;
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  private last: { readonly at: number; readonly result: DiscoveryResult } | undefined;
  private inFlight: Promise<DiscoveryResult> | undefined;
  /** Bumped by invalidate(): a scan that started before it is not kept as the current result. */
  private generation = 0;

  constructor(private readonly init: DiscoveryCacheOptions = {}) {
    this.discover = init.discover ?? discoverLocalModels;
    this.maxAgeMs = init.maxAgeMs ?? 30_000;
    this.now = init.now ?? Date.now;
  }

  /** The models on disk: the last result while it is fresh, else one new scan shared by everyone asking meanwhile. */
  get(): Promise<DiscoveryResult> {
    if (this.last && this.now() - this.last.at < this.maxAgeMs) return Promise.resolve(this.last.result);
    if (this.inFlight) return this.inFlight;
    const generation = this.generation;
    const started = this.now();
    const scan = this.discover(this.init.options ?? {}).then(
      (result) => {
        if (generation === this.generation) this.last = { at: started, result };
        return result;
      },
      // discoverLocalModels never throws; a replacement that does must not wedge the cache.
      (error: unknown): DiscoveryResult => ({ models: [], problems: [`model discovery failed: ${error instanceof Error ? error.message : String(error)}`] }),
    );
    const shared = scan.finally(() => {
      if (this.inFlight === shared) this.inFlight = undefined;
    });
    this.inFlight = shared;
    return shared;
  }

  /** The stores may have changed: the next get() scans again. */
  invalidate(): void {
    this.generation++;
    this.last = undefined;
    this.inFlight = undefined;
  }
}

/** The extension host's one cache of the user's own stores (Ollama, LM Studio, Hugging Face, llama.cpp). */
export const localModelDiscovery = new DiscoveryCache();
