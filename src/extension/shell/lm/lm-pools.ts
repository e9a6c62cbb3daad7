// One session pool per model the provider serves, on the same shared engines (one engine
// process per model) that panels use. A model unused for statefulChat.chatProvider.idleMinutes
// is let go (its engine freed unless a panel holds it). Every request served is recorded for
// the log, Show Session Stats and the tests. Each model's long shared prefixes (VS Code's
// agent-mode instructions and tools) are kept in `<model>/prefixes/`, so a new conversation, and
// the first one after a restart, loads them instead of prefilling them.

import { join } from "node:path";
import * as vscode from "vscode";
import { ChatTemplate } from "../../core/chat-template";
import type { Tokenizer } from "../../core/engine";
import { FilePrefixStore } from "../../core/request-pool/file-prefix-store";
import type { RequestTemplate } from "../../core/request-pool/request-messages";
import type { KvDiskBudget } from "../../core/request-pool/kv-disk-budget";
import { RequestPool, type PoolReply } from "../../core/request-pool/request-pool";
import { TOOL_CALL_MARKERS, toolCallFormatOf, type ToolCallFormat } from "../../core/tool-calls/tool-call-formats";
import { prefixStoreKey } from "../../snapshots/prefix-key";
import type { EngineLease, EngineRegistry } from "../engines/engine-registry";
import { engineSettingsOf } from "../settings/engine-settings";
import { IdleTracker } from "../../core/request-pool/idle-tracker";
import { readProviderIdleMs, readProviderSessions, readProviderStablePrefixFirst, readSettings } from "../settings/settings";
import type { CatalogModel } from "./lm-catalog";
import { providerEngineSettings } from "./provider-settings";

export interface ModelPool {
  readonly model: CatalogModel;
  readonly pool: RequestPool;
  /** The model's template with the provider's layout options, read at each request (a changed setting needs no reload). */
  readonly template: RequestTemplate;
  readonly tokenizer: Tokenizer;
  readonly toolFormat: ToolCallFormat;
  readonly modelName: string;
}

/** One request the provider served: who served it and what it cost. */
export interface ServedRequest extends PoolReply {
  readonly model: string;
  /** "chat" for VS Code's Chat and other extensions, "participant" for @stateful. */
  readonly via: "lm" | "participant";
  readonly requestTokens: number;
  readonly toolCalls: number;
  readonly ttftMs: number;
  readonly decodeTokensPerSec: number;
  readonly at: string;
}

const RECORDS_KEPT = 50;
/** How often unused models are looked for. */
const IDLE_SWEEP_MS = 60_000;

interface Entry {
  readonly key: string;
  readonly ready: Promise<ModelPool>;
  /** Set once `ready` resolved: what can be used without waiting. */
  loaded?: ModelPool;
  readonly held: { lease?: EngineLease; prefixes?: FilePrefixStore };
}

export class ModelPools implements vscode.Disposable {
  private readonly entries = new Map<string, Entry>();
  readonly served: ServedRequest[] = [];
  /** @stateful /reset commands run (the tests wait for one). */
  resets = 0;
  private readonly usage = new IdleTracker<string>();
  private readonly sweep = setInterval(() => void this.releaseIdle(), IDLE_SWEEP_MS);

  constructor(
    private readonly registry: EngineRegistry,
    private readonly storageDir: string,
    private readonly log: vscode.LogOutputChannel,
    /** Parked sessions' snapshots count against the one KV disk budget. */
    private readonly diskBudget?: KvDiskBudget,
  ) {
    this.sweep.unref?.();
  }

  /** Runs `work` on the pool for `model` (loaded on first use); the model is in use meanwhile. */
  async use<T>(model: CatalogModel, work: (target: ModelPool) => Promise<T>): Promise<T> {
    this.usage.begin(model.id);
    try {
      return await work(await this.get(model));
    } finally {
      this.usage.end(model.id);
    }
  }

  /**
   * The model's tokenizer when its engine is loaded with the current settings; otherwise
   * undefined, and the load is started (in the background: nobody waits for it here). Counts
   * as a use of the model, as `use` does, so a model loaded for counts alone is released idle.
   */
  tokenizerOrLoad(model: CatalogModel): Tokenizer | undefined {
    this.usage.begin(model.id);
    this.usage.end(model.id);
    this.get(model).catch(() => undefined); // Reported to whoever uses the model next.
    return this.entries.get(model.id)?.loaded?.tokenizer;
  }

  /** Lets go of the models unused for the idle time; resolves with their ids. */
  async releaseIdle(idleMs = readProviderIdleMs()): Promise<string[]> {
    const idle = this.usage.idle(idleMs).filter((id) => this.entries.has(id));
    await Promise.all(
      idle.map((id) => {
        this.usage.forget(id);
        this.log.info(`Chat provider: ${id} unused for ${Math.round(idleMs / 60_000)} min; its sessions are dropped and its engine released`);
        return this.drop(id, this.entries.get(id)!);
      }),
    );
    return idle;
  }

  /** The pool for `model`, loading its engine on first use (or after the engine settings changed). */
  private get(model: CatalogModel): Promise<ModelPool> {
    const settings = providerEngineSettings(model, readSettings()); // the provider's own context size: provider-settings.ts
    const key = JSON.stringify([model.path, readProviderSessions(), ...engineSettingsOf(settings)]);
    const existing = this.entries.get(model.id);
    if (existing && existing.key === key) return existing.ready;
    if (existing) void this.drop(model.id, existing);
    const held: Entry["held"] = {};
    const entry: Entry = {
      key,
      held,
      ready: (async () => {
        const lease = await this.registry.acquire(model.path, settings);
        held.lease = lease;
        const engine = lease.loaded.engine;
        const prefixKey = await prefixStoreKey(engine.info); // undefined: this backend's caches are not stored
        const prefixStore = prefixKey === undefined ? undefined : new FilePrefixStore({ dir: join(this.storageDir, model.id, "prefixes"), key: prefixKey, budget: this.diskBudget });
        held.prefixes = prefixStore;
        const pool = new RequestPool(engine, { size: readProviderSessions(), snapshotDir: join(this.storageDir, model.id), diskBudget: this.diskBudget, prefixStore });
        const chat = new ChatTemplate(engine.chatTemplate, { bosToken: engine.tokenizer.bos?.text, eosToken: engine.tokenizer.eosText, modelName: engine.info.modelName });
        chat.probe();
        const toolFormat = toolCallFormatOf(engine.chatTemplate);
        const quotedMarkers = TOOL_CALL_MARKERS[toolFormat];
        const onFallback = this.onceEach(`Chat provider: ${model.id}: stable prefix first not possible`);
        return {
          model,
          pool,
          tokenizer: engine.tokenizer,
          get template(): RequestTemplate {
            return { chat, stablePrefixFirst: readProviderStablePrefixFirst(), onFallback, quotedMarkers };
          },
          toolFormat,
          modelName: engine.info.modelName,
        };
      })(),
    };
    this.entries.set(model.id, entry);
    entry.ready.then(
      (pool) => (entry.loaded = pool),
      () => this.entries.get(model.id) === entry && this.entries.delete(model.id),
    );
    return entry.ready;
  }

  /** Logs each distinct reason once (a template that cannot take the layout would say so on every request). */
  private onceEach(prefix: string): (why: string) => void {
    const said = new Set<string>();
    return (why) => {
      if (said.has(why)) return;
      said.add(why);
      this.log.warn(`${prefix}: ${why}`);
    };
  }

  record(request: ServedRequest): void {
    this.served.push(request);
    if (this.served.length > RECORDS_KEPT) this.served.shift();
    const fromDisk = request.restoredTokens !== undefined ? `: ${request.restoredTokens} tokens` : "";
    const resumed = request.restored ? `, restored (${request.restored}${fromDisk})` : "";
    const parked = request.parked ? `, parked ${request.parked}` : "";
    this.log.info(
      `Chat provider (${request.via}): ${request.model} session ${request.sessionId}: ${request.cached} cached, ${request.prefilled} prefilled, ` +
        `${request.rewound} rewound, ${request.generated} generated (${request.stopReason}), first token ${request.ttftMs} ms, ${request.decodeTokensPerSec} tok/s${request.toolCalls ? `, ${request.toolCalls} tool calls` : ""}${resumed}${parked}`,
    );
  }

  /** Live and parked sessions per model, for Show Session Stats. */
  async views(): Promise<Array<{ readonly model: string } & ReturnType<RequestPool["view"]>>> {
    const out: Array<{ readonly model: string } & ReturnType<RequestPool["view"]>> = [];
    for (const entry of this.entries.values()) {
      const ready = await entry.ready.catch(() => undefined);
      if (ready) out.push({ model: ready.modelName, ...ready.pool.view() });
    }
    return out;
  }

  dispose(): void {
    clearInterval(this.sweep);
    void this.releaseAll();
  }

  /**
   * Let every model go: sessions disposed, engine leases released (an engine no panel uses is
   * freed). The next request loads again. Resolves when all are released.
   */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.entries].map(([id, entry]) => this.drop(id, entry)));
  }

  private drop(id: string, entry: Entry): Promise<void> {
    this.entries.delete(id);
    return entry.ready.then(
      async (ready) => {
        await ready.pool.dispose();
        entry.held.prefixes?.dispose();
        entry.held.lease?.release();
      },
      () => undefined,
    );
  }
}
