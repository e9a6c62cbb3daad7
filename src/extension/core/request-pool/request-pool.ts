// Stateless requests served from stateful sessions. Each request carries a whole conversation
// as tokens; the pool serves it from the session whose ledger shares the longest prefix with
// it, rewound to that prefix (exact tail erase), so only the rest is prefilled. A few sessions
// live at once (each one KV state); the least recently used one is parked — its cache written
// to a snapshot, its ledger kept — so a conversation that comes back is restored, not
// re-prefilled. Requests run one at a time, in order (one FIFO for the pool: they share the
// engine's cores anyway, and a choice of session must see every ledger settled). Parked
// snapshots count against the one KV disk budget (kv-disk-budget.ts) with the panels'. A new
// conversation whose request starts with a long prefix seen before (VS Code's agent-mode
// instructions and tools) starts from the prefix store's cache of it (prefix-store.ts), after
// a restart too, and a new conversation's long prompt is stored once its reply is out (or, when
// the request names its stable prefix, exactly that prefix, during the prefill).

import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { mkdir, rm } from "node:fs/promises";
import type { Engine, SamplingOptions } from "../engine";
import { CancelledError, CapacityError } from "../errors";
import type { StopReason } from "../generation";
import { Session } from "../session";
import { SessionQueue } from "../session-queue";
import { speculationOf, type SpeculationStats } from "../stats";
import type { KvDiskBudget, KvFileOwner } from "./kv-disk-budget";
import { keepPrefix, prefillStoringPrefix, restorePrefix } from "./prefix-session";
import type { PrefixStore } from "./prefix-store";
import { commonTokenPrefix } from "./token-prefix";

export interface RequestPoolOptions {
  /** Sessions (KV states) alive at once; more conversations are parked. */
  readonly size: number;
  /** Where parked sessions' caches are written. Without it a parked session keeps its ledger only and is re-prefilled when it comes back. */
  readonly snapshotDir?: string;
  /** Parked conversations kept (the oldest is forgotten, its snapshot deleted). Defaults to 4 × size. */
  readonly maxParked?: number;
  readonly prefillChunk?: number;
  /**
   * A session continues a request when it holds all of its own ledger but at most this many
   * tokens: the re-tokenization of the reply the caller sends back can differ at its end.
   */
  readonly tailSlack?: number;
  /** A shared prefix at least this long is worth taking a session over (parking what it held) rather than starting a fresh one. */
  readonly minReuse?: number;
  /**
   * The disk budget every KV file shares (panels' snapshots too): told of each snapshot
   * written, it may evict parked ones (that conversation is then re-prefilled if it comes
   * back). A budget of 0 bytes writes none.
   */
  readonly diskBudget?: KvDiskBudget;
  /** Long prefixes shared by new conversations, kept as KV caches (on disk: they outlive the pool). */
  readonly prefixStore?: PrefixStore;
  /**
   * A stored prefix is loaded when a request shares at least this many tokens with it, and a new
   * conversation's prompt stored when at least this many of its tokens are not stored yet.
   * Defaults to 1024 (the store matches whole blocks of 256 tokens first).
   */
  readonly minPrefix?: number;
}

export interface PoolRequest {
  readonly tokens: readonly number[];
  readonly maxTokens: number;
  readonly sampling: SamplingOptions;
  /** How far the prefill of what the cache lacks is (Session.prefill's onProgress): for a long first prefill's progress. */
  readonly onPrefillProgress?: (done: number, total: number) => void;
  /**
   * Leading tokens the next new conversation shares (RenderedRequest.stablePrefix). Given, the
   * prefix store keeps exactly these (stored during the prefill that crosses them) instead of
   * the whole prompt after the reply: what follows is this conversation's own.
   */
  readonly stablePrefix?: number;
}

export interface PoolReply {
  /** The conversation (session) that served the request. */
  readonly sessionId: string;
  /** Request tokens the cache already held. */
  readonly cached: number;
  /** Request tokens evaluated for this request. */
  readonly prefilled: number;
  /** Tokens erased from the end of the session's cache because the request differs there. */
  readonly rewound: number;
  /**
   * The session came back from being parked (from its snapshot, or by re-prefilling its
   * ledger), or a new conversation started from a stored prefix.
   */
  readonly restored?: "snapshot" | "reprefill" | "prefix";
  /** With restored "snapshot" or "prefix": request tokens loaded from disk instead of prefilled (part of `cached`). */
  readonly restoredTokens?: number;
  /** Another conversation was parked to make room (its id). */
  readonly parked?: string;
  readonly generated: number;
  readonly stopReason: StopReason;
  readonly position: number;
  readonly capacity: number;
  readonly speculation?: SpeculationStats;
}

export interface PoolView {
  readonly live: ReadonlyArray<{ readonly id: string; readonly position: number }>;
  readonly parked: ReadonlyArray<{ readonly id: string; readonly tokens: number; readonly snapshot: boolean }>;
}

interface Live {
  id: string;
  readonly session: Session;
  lastUsed: number;
  /** Tokens of the last request it served (what it holds before that reply). */
  promptLength: number;
}

interface Parked {
  readonly id: string;
  readonly tokens: readonly number[];
  /** Its snapshot; dropped when the disk budget evicts it. */
  path?: string;
  readonly promptLength: number;
}

interface Choice {
  readonly entry: Live;
  readonly restored?: PoolReply["restored"];
  /** Tokens loaded from the prefix store. */
  readonly fromStore?: number;
  readonly parked?: string;
  /** A new conversation or a fork: its first `recurring` request tokens may be worth storing as a prefix. */
  readonly recurring?: number;
}

export class RequestPool {
  private readonly queue = new SessionQueue();
  private readonly live: Live[] = [];
  private readonly parkedList: Parked[] = [];
  private clock = 0;
  private nextId = 1;
  private snapshotCount = 0;
  /** Names this pool's files apart from another pool's in the same folder (a pool replaced while the old one is disposed). */
  private readonly fileTag = randomUUID().slice(0, 8);
  /** Snapshot files being written or restored: the disk budget leaves them alone. */
  private readonly inUse = new Set<string>();
  private readonly unregister: () => void;
  private disposed = false;

  constructor(
    private readonly engine: Engine,
    private readonly options: RequestPoolOptions,
  ) {
    if (!Number.isInteger(options.size) || options.size < 1) throw new RangeError(`pool size must be a positive integer, got ${options.size}`);
    this.unregister = options.diskBudget?.register(this.fileOwner()) ?? (() => undefined);
  }

  get capacity(): number {
    return this.engine.info.capacity;
  }

  view(): PoolView {
    return {
      live: this.live.map((e) => ({ id: e.id, position: e.session.position })),
      parked: this.parkedList.map((p) => ({ id: p.id, tokens: p.tokens.length, snapshot: p.path !== undefined })),
    };
  }

  /** Serve one request; `onToken` sees each generated token in order. Rejects with CancelledError when stopped before the reply began. */
  serve(request: PoolRequest, onToken: (token: number) => void, signal?: AbortSignal): Promise<PoolReply> {
    if (signal?.aborted) return Promise.reject(new CancelledError());
    return this.queue.enqueue("send", (queueSignal) => this.run(request, onToken, signal ? AbortSignal.any([signal, queueSignal]) : queueSignal));
  }

  /** Resolves once nothing is queued or running (a prompt being stored after its reply included). */
  whenIdle(): Promise<void> {
    return this.queue.whenIdle();
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.unregister();
    await this.queue.dispose();
    await Promise.all(this.live.splice(0).map((e) => e.session.dispose()));
    await Promise.all(this.parkedList.splice(0).map((p) => this.forget(p)));
  }

  private async run(request: PoolRequest, onToken: (token: number) => void, signal: AbortSignal): Promise<PoolReply> {
    const tokens = request.tokens;
    const capacity = this.capacity;
    if (tokens.length === 0) throw new RangeError("a request has at least one token");
    if (tokens.length + 1 > capacity) throw new CapacityError(0, tokens.length, capacity);
    if (signal.aborted) throw new CancelledError();
    const choice = await this.choose(tokens);
    const { entry } = choice;
    const session = entry.session;
    entry.lastUsed = ++this.clock;
    const shared = commonTokenPrefix(session.tokens, tokens);
    const rewound = session.position - shared;
    if (rewound > 0) await session.rollback(shared);
    const before = { ...session.counters };
    if (request.stablePrefix === undefined) await session.prefill(tokens.slice(shared), signal, request.onPrefillProgress);
    else await prefillStoringPrefix(this.options.prefixStore, session, tokens, request.stablePrefix, this.minPrefix, signal, request.onPrefillProgress);
    entry.promptLength = tokens.length;
    let generated = 0;
    const generator = session.generate({ maxTokens: Math.min(request.maxTokens, capacity - tokens.length), sampling: request.sampling }, signal);
    let step = await generator.next();
    while (!step.done) {
      generated++;
      onToken(step.value);
      step = await generator.next();
    }
    const prefilled = session.counters.prefilled - before.prefilled;
    if (choice.recurring !== undefined && request.stablePrefix === undefined) this.keepPrefix(entry, tokens, choice.recurring);
    return {
      sessionId: entry.id,
      cached: tokens.length - prefilled,
      prefilled,
      rewound,
      restored: choice.restored,
      restoredTokens: choice.restored === "prefix" ? choice.fromStore : choice.restored === "snapshot" ? shared : undefined,
      parked: choice.parked,
      generated,
      stopReason: step.value,
      position: session.position,
      capacity,
      speculation: speculationOf(before, session.counters),
    };
  }

  private async choose(tokens: readonly number[]): Promise<Choice> {
    const slack = this.options.tailSlack ?? 32;
    // A request continues what a session holds when it holds all of its last request and all
    // but the end of its reply (which the caller re-tokenizes), and the request adds to it. A
    // request that only repeats a prefix (a regenerate, or another conversation that starts
    // the same way) is a fork: the session's content is parked before it is rewound.
    const continues = (held: readonly number[], promptLength: number, shared: number) =>
      shared >= promptLength && shared >= held.length - slack && shared < tokens.length;
    const ranked = this.live
      .map((entry) => ({ entry, shared: commonTokenPrefix(entry.session.tokens, tokens) }))
      .sort((a, b) => b.shared - a.shared || b.entry.lastUsed - a.entry.lastUsed);
    const best = ranked[0];
    // The conversation this session holds goes on.
    if (best && continues(best.entry.session.tokens, best.entry.promptLength, best.shared)) return { entry: best.entry };

    // A parked conversation comes back.
    const parked = this.parkedList
      .map((p) => ({ p, shared: commonTokenPrefix(p.tokens, tokens) }))
      .filter(({ p, shared }) => continues(p.tokens, p.promptLength, shared))
      .sort((a, b) => b.shared - a.shared)[0];
    // (Preferred over forking a live session that shares only a few template tokens more.)
    if (parked && parked.shared + slack >= (best?.shared ?? 0)) return this.bringBack(parked.p);

    // A new conversation or a fork of one: take over the session that shares the most when
    // that is worth it (what it held is parked, so it can come back), else a fresh one.
    // A stored prefix that holds more than any session wins over taking one over.
    const minReuse = this.options.minReuse ?? 64;
    const roomLeft = this.live.length < this.options.size;
    const holdsAll = best !== undefined && best.shared === tokens.length; // a regenerate, or the same opening message
    const stored = this.options.prefixStore ? await this.options.prefixStore.shared(tokens).catch(() => 0) : 0;
    const storeWins = stored >= this.minPrefix && stored > (best?.shared ?? 0);
    if (best && !storeWins && (best.shared >= minReuse || holdsAll || (!roomLeft && best.shared > 0))) {
      const parkedId = await this.park(best.entry);
      best.entry.id = this.newId();
      return { entry: best.entry, parked: parkedId, recurring: best.shared };
    }
    const slot = await this.freeSlot();
    await slot.entry.session.reset();
    const fromStore = storeWins ? await restorePrefix(this.options.prefixStore!, slot.entry.session, tokens, this.minPrefix) : 0;
    return { entry: slot.entry, parked: slot.parked, recurring: tokens.length, ...(fromStore > 0 ? { restored: "prefix" as const, fromStore } : {}) };
  }

  private get minPrefix(): number {
    return this.options.minPrefix ?? 1024;
  }

  /**
   * Store a new conversation's prompt as a prefix (prefix-session.ts decides whether it is
   * worth it). Queued behind this reply, so the caller is not kept waiting for the write.
   */
  private keepPrefix(entry: Live, prompt: readonly number[], recurring: number): void {
    const store = this.options.prefixStore;
    if (!store || recurring < this.minPrefix) return;
    void this.queue
      .enqueue("other", async () => {
        if (this.live.includes(entry)) await keepPrefix(store, entry.session, prompt, recurring, this.minPrefix);
      })
      .catch(() => undefined); // Not stored: the next new conversation prefills it.
  }

  /**
   * A parked conversation comes back into a session. It leaves the parked list before a slot
   * is freed: freeing one parks another conversation, which trims the list from its oldest
   * end and must not take (and delete the snapshot of) the one being brought back.
   */
  private async bringBack(parked: Parked): Promise<Choice> {
    this.parkedList.splice(this.parkedList.indexOf(parked), 1);
    const path = parked.path;
    if (path) this.inUse.add(path);
    try {
      const slot = await this.freeSlot();
      await slot.entry.session.restore(parked.tokens);
      const loaded = parked.path !== undefined && (await slot.entry.session.loadSnapshot(parked.path));
      slot.entry.id = parked.id;
      slot.entry.promptLength = parked.promptLength;
      await this.forget(parked); // Its cache is in the session now (or re-prefilled from its ledger).
      return { entry: slot.entry, restored: loaded ? "snapshot" : "reprefill", parked: slot.parked };
    } catch (error) {
      this.parkedList.push(parked); // Not brought back: it stays parked, its snapshot kept.
      throw error;
    } finally {
      if (path) this.inUse.delete(path);
    }
  }

  /** A session to use: a new one while there is room, else the least recently used one, parked first. */
  private async freeSlot(): Promise<{ entry: Live; parked?: string }> {
    if (this.live.length < this.options.size) {
      const state = await this.engine.createState();
      const entry: Live = { id: this.newId(), session: new Session(state, this.engine.tokenizer, this.options.prefillChunk ?? 128), lastUsed: 0, promptLength: 0 };
      this.live.push(entry);
      return { entry };
    }
    const lru = this.live.reduce((a, b) => (b.lastUsed < a.lastUsed ? b : a));
    const parked = await this.park(lru);
    await lru.session.reset();
    lru.id = this.newId();
    return { entry: lru, parked };
  }

  /** Keep what `entry` holds as a parked conversation (its cache as a snapshot where possible). */
  private async park(entry: Live): Promise<string | undefined> {
    const session = entry.session;
    if (session.position === 0) return undefined;
    let path: string | undefined;
    const budget = this.options.diskBudget;
    if (this.options.snapshotDir && (!budget || budget.bytes() > 0)) {
      const candidate = join(this.options.snapshotDir, `pool-${this.fileTag}-${entry.id}-${++this.snapshotCount}.kv`);
      this.inUse.add(candidate);
      try {
        await mkdir(this.options.snapshotDir, { recursive: true });
        if ((await session.saveSnapshot(candidate)) !== undefined) path = candidate;
      } catch {
        // No snapshot: the conversation is re-prefilled if it comes back.
        await rm(candidate, { force: true }).catch(() => undefined);
      } finally {
        this.inUse.delete(candidate);
      }
    }
    this.parkedList.push({ id: entry.id, tokens: [...session.tokens], path, promptLength: entry.promptLength });
    const maxParked = this.options.maxParked ?? 4 * this.options.size;
    while (this.parkedList.length > maxParked) await this.forget(this.parkedList.shift()!);
    // Not awaited: the budget may wait on a panel's snapshot; this request need not.
    if (path && budget) void budget.enforce(path).catch(() => undefined);
    return entry.id;
  }

  private async forget(parked: Parked): Promise<void> {
    const path = parked.path;
    parked.path = undefined;
    if (path) await rm(path, { force: true }).catch(() => undefined);
  }

  /** The parked snapshots as the disk budget sees them: evicted ones are dropped from their conversation (re-prefilled if it comes back). */
  private fileOwner(): KvFileOwner {
    return {
      owns: (path) => this.inUse.has(path) || this.parkedList.some((p) => p.path === path),
      pinned: () => this.inUse,
      evict: async (paths) => {
        if (paths.some((path) => this.inUse.has(path))) return false;
        for (const parked of this.parkedList.filter((p) => p.path !== undefined && paths.includes(p.path))) await this.forget(parked);
        await Promise.all(paths.map((path) => rm(path, { force: true }).catch(() => undefined)));
        return true;
      },
    };
  }

  private newId(): string {
    return `s${this.nextId++}`;
  }
}
