// KV snapshots on disk, one per chat: `<id>.kv` (the backend's cache file) and `<id>.json`
// (what it was made with and the conversation it holds), both written to temporary names,
// flushed and renamed into place, for the user only (core/disk/private-files.ts).
// Incremental: when the conversation only grew since the last save and the backend can, a
// save writes only the new cells (`<id>.<n>.kvd`, listed in the description) instead of the whole cache again; the whole cache is rewritten when the
// deltas together reach its size, when the conversation was rewound, or a save is pending. A snapshot is loaded only when model, backend, context size,
// ledger and file size all match; anything else is deleted, never loaded. One disk budget
// (kv-disk-budget.ts, shared with the pool's parked sessions) evicts the oldest snapshots.
//
// Per chat, the renames that publish a save, deletes, restores and evictions run one at a
// time in order (a chain per id), and a delete voids every save asked for before it: a save
// still being written when the chat is reset or closed never brings the old conversation
// back. A chat closed shortly before the window reloads leaves a tombstone (`<id>.closed`),
// so its snapshot is deleted later (panel-snapshots.ts) instead of staying forever.

import { readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Conversation, SnapshotWriter } from "../core/conversation";
import { checkedChatId, isChatId } from "../core/chat-id";
import type { ChatMessage } from "../core/chat-template";
import { makePrivateFolder, replaceDurably, sealFile, syncFolder, writePrivateFile } from "../core/disk/private-files";
import { temporaryPath } from "../core/disk/temporary-files";
import type { SavedContextItem } from "../core/context-delta";
import type { EngineInfo } from "../core/engine";
import { CancelledError, DisposedError, EngineCrashedError } from "../core/errors";
import type { KvDiskBudget, KvFileOwner } from "../core/request-pool/kv-disk-budget";
import { KvFolderBudget } from "./kv-disk-budget";
import { modelIdentity } from "./model-identity";
import { checkSnapshot, missingFile } from "./snapshot-check";
import { deltaFileName, ledgerHash, ledgerOf, type SnapshotDelta, type SnapshotMeta } from "./snapshot-meta";

const DEFAULT_SNAPSHOT_BUDGET_BYTES = 2 * 1024 ** 3;

/** What a restore did: the cache loaded, only the conversation (re-prefilled), or nothing usable. */
export type RestoreOutcome =
  | { readonly kind: "snapshot"; readonly tokens: number; readonly context?: readonly SavedContextItem[] }
  | { readonly kind: "conversation"; readonly reason: string; readonly context?: readonly SavedContextItem[] }
  | { readonly kind: "none"; readonly reason: string };

/**
 * The workspace context a chat panel's model holds after turn `turn`. A save is queued behind
 * turns sent before it ran, so it may write a later conversation than this: the context is then
 * left out (a restore re-sends it) rather than saved beside a cache it does not describe.
 */
export interface TurnContext {
  readonly turn: number;
  readonly items: readonly SavedContextItem[];
}

/** A save written to temporary files, waiting for its turn to be renamed into place. */
interface PendingSave {
  readonly ticket: number;
  readonly tempCache: string;
  readonly tempMeta: string;
  readonly description: SnapshotMeta;
  /** A delta: its file's final path, and the ticket of the save on disk it extends. */
  readonly delta?: { readonly path: string; readonly basedOn: number };
}

/** The snapshot on disk for a chat, as this store last published or restored it. */
interface OnDisk {
  readonly ticket: number;
  /** What its cells were computed with: a delta from another engine must not extend them. */
  readonly backend: SnapshotMeta["backend"];
  readonly modelPath: string | undefined;
  readonly contextSize: number;
  readonly ledger: SnapshotMeta["ledger"];
  readonly cacheBytes: number;
  readonly deltas: readonly SnapshotDelta[];
}

function onDiskOf(ticket: number, meta: SnapshotMeta): OnDisk {
  const { backend, modelPath, contextSize, ledger, cacheBytes, deltas = [] } = meta;
  return { ticket, backend, modelPath, contextSize, ledger, cacheBytes, deltas };
}

/** Deltas per snapshot before the whole cache is written again (each restore appends them one by one). */
const MAX_DELTAS = 64;

export class SnapshotStore implements KvFileOwner {
  /** Per chat: publishing saves, deletes, restores and evictions run in order. */
  private readonly chains = new Map<string, Promise<unknown>>();
  /** Orders saves and deletes: each save takes a ticket when it is asked for. */
  private tickets = 0;
  /** Per chat, the ticket of its last delete: saves asked for before it are void. */
  private readonly deletedAt = new Map<string, number>();
  /** Per chat, the ticket of the save on disk: an older one landing late is dropped. */
  private readonly publishedAt = new Map<string, number>();
  /** Chats being restored (their files are not evicted meanwhile). */
  private readonly restoring = new Set<string>();
  /** Per chat, the snapshot on disk (what a delta extends). */
  private readonly onDisk = new Map<string, OnDisk>();
  /** Per chat, saves written and not yet published: a delta is written only when none is. */
  private readonly unpublished = new Map<string, number>();
  /** Engines (backend and model) that refused a delta: they get whole saves. */
  private readonly noDeltas = new Set<string>();
  private readonly budget: KvDiskBudget;

  constructor(
    private readonly root: string,
    /** The shared KV disk budget, or the bytes this store's snapshots may take alone (0 turns snapshots off). */
    budget: KvDiskBudget | (() => number) = () => DEFAULT_SNAPSHOT_BUDGET_BYTES,
  ) {
    this.budget = typeof budget === "function" ? new KvFolderBudget([root], budget) : budget;
    this.budget.register(this);
  }

  private files(id: string): { cache: string; meta: string; closed: string } {
    checkedChatId(id); // A snapshot is named by its chat: nothing else becomes a path.
    return { cache: join(this.root, `${id}.kv`), meta: join(this.root, `${id}.json`), closed: join(this.root, `${id}.closed`) };
  }

  /**
   * Save the chat's cache and conversation. Queued on the chat at once (behind its running
   * turn, before anything sent later), so closing the chat right after a turn still saves.
   * The files are renamed into place in the chat's chain, unless a delete came after this call.
   * Returns the meta written, or undefined when there was nothing to save, the backend cannot,
   * or the chat was deleted (reset, closed) meanwhile.
   */
  async save(id: string, chat: Conversation, context?: TurnContext): Promise<SnapshotMeta | undefined> {
    if (this.budget.bytes() <= 0) return undefined;
    const ticket = ++this.tickets;
    const { cache, meta } = this.files(id);
    const pending = await chat.saveSnapshot((conversation, writeCache) => this.writeTemporary(id, ticket, chat.engine.info, conversation, writeCache, context));
    if (!pending) return undefined;
    const published = await this.chain(id, () => this.publish(id, pending, cache, meta));
    if (published) await this.budget.enforce(cache);
    return published;
  }

  /** Inside the chat's queue (the cache is read there): both files under temporary names. */
  private async writeTemporary(
    id: string,
    ticket: number,
    info: EngineInfo,
    conversation: SnapshotMeta["conversation"],
    writeCache: SnapshotWriter,
    context: TurnContext | undefined,
  ): Promise<PendingSave | undefined> {
    const { cache, meta } = this.files(id);
    const tempMeta = temporaryPath(meta);
    if (this.voided(id, ticket)) return undefined;
    const tokens = ledgerOf(conversation);
    const written = await this.writeDelta(id, info, tokens, writeCache);
    const tempCache = written?.temp ?? temporaryPath(cache);
    try {
      await makePrivateFolder(this.root);
      if (!written && (await writeCache(tempCache)) === undefined) throw new NothingToSave();
      const description: SnapshotMeta = {
        version: 1,
        id,
        savedAt: new Date().toISOString(),
        backend: info.backend,
        model: await modelIdentity(info.modelPath),
        modelPath: info.modelPath,
        contextSize: info.capacity,
        ledger: { length: tokens.length, sha256: ledgerHash(tokens) },
        cacheBytes: written ? written.base.cacheBytes : (await stat(tempCache)).size,
        ...(written ? { deltas: [...written.base.deltas, written.delta] } : {}),
        conversation,
        ...(context && context.turn === conversation.turns ? { context: context.items } : {}),
      };
      await writePrivateFile(tempMeta, JSON.stringify(description));
      this.unpublished.set(id, (this.unpublished.get(id) ?? 0) + 1);
      return { ticket, tempCache, tempMeta, description, ...(written ? { delta: { path: join(this.root, written.delta.file), basedOn: written.base.ticket } } : {}) };
    } catch (error) {
      await removeTemporary(tempCache, tempMeta);
      if (error instanceof NothingToSave) return undefined;
      throw error;
    }
  }

  /**
   * Only the cells added since the snapshot on disk, when the conversation extends it, the same
   * engine made it, its files are still there (another window's budget, or a user, may have
   * removed them), no other save is waiting to be published, the deltas are still smaller than
   * the cache file and the backend can (a refusal is remembered: that engine gets whole saves).
   * Undefined: write it whole.
   */
  private async writeDelta(id: string, info: EngineInfo, tokens: readonly number[], writeCache: SnapshotWriter): Promise<{ temp: string; base: OnDisk; delta: SnapshotDelta } | undefined> {
    const base = this.onDisk.get(id);
    const engine = `${info.backend}:${info.modelPath}`;
    if (!base || this.noDeltas.has(engine) || (this.unpublished.get(id) ?? 0) > 0) return undefined;
    const from = base.ledger.length;
    if (from === 0 || from >= tokens.length || base.deltas.length >= MAX_DELTAS) return undefined;
    if (base.deltas.reduce((sum, d) => sum + d.bytes, 0) >= base.cacheBytes) return undefined;
    if (ledgerHash(tokens.slice(0, from)) !== base.ledger.sha256) return undefined; // Rewound or edited: not an extension.
    if (base.backend !== info.backend || base.modelPath !== info.modelPath || base.contextSize !== info.capacity) return undefined;
    if ((await missingFile(this.files(id), this.root, base)) !== undefined) return undefined;
    const n = (base.deltas.length > 0 ? Number(/\.(\d+)\.kvd$/.exec(base.deltas[base.deltas.length - 1].file)![1]) : 0) + 1;
    const file = deltaFileName(id, n);
    const temp = temporaryPath(join(this.root, file));
    try {
      await makePrivateFolder(this.root);
      const bytes = await writeCache(temp, from);
      if (bytes === undefined) {
        await rm(temp, { force: true });
        return undefined;
      }
      return { temp, base, delta: { file, from, length: tokens.length - from, bytes: (await stat(temp)).size } };
    } catch (error) {
      // This engine cannot split its cache (another binary, a sliding-window or recurrent model):
      // whole saves from now on. A crash, a disposed state or a cancel says nothing about that.
      if (!(error instanceof EngineCrashedError || error instanceof DisposedError || error instanceof CancelledError)) this.noDeltas.add(engine);
      await rm(temp, { force: true });
      return undefined;
    }
  }

  /** In the chat's chain: rename the save into place unless a delete or a newer save came first. */
  private async publish(id: string, pending: PendingSave, cache: string, meta: string): Promise<SnapshotMeta | undefined> {
    try {
      if (this.voided(id, pending.ticket) || (this.publishedAt.get(id) ?? 0) > pending.ticket) return undefined;
      // A delta extends one snapshot: if another was published or deleted since, it is dropped (the next save writes it whole).
      if (pending.delta && (this.onDisk.get(id)?.ticket ?? -1) !== pending.delta.basedOn) return undefined;
      // On the disk before they are renamed into place (here, not in the chat's queue: flushing a
      // large cache must not hold the next turn), the backend's file made the user's only.
      await sealFile(pending.tempCache);
      await sealFile(pending.tempMeta);
      // Cache (or delta) first, description last: a description always names complete files.
      await rename(pending.tempCache, pending.delta?.path ?? cache);
      await rename(pending.tempMeta, meta);
      await syncFolder(this.root); // The renames too survive a power loss: a description never names a file that is not there.
      this.publishedAt.set(id, pending.ticket);
      this.onDisk.set(id, onDiskOf(pending.ticket, pending.description));
      // A whole save makes the earlier deltas useless.
      if (!pending.delta) await this.removeDeltas(id, new Set());
      return pending.description;
    } finally {
      const left = (this.unpublished.get(id) ?? 1) - 1;
      if (left > 0) this.unpublished.set(id, left);
      else this.unpublished.delete(id);
      await removeTemporary(pending.tempCache, pending.tempMeta);
    }
  }

  /** The chat's delta files, but those in `keep`. */
  private async removeDeltas(id: string, keep: ReadonlySet<string>): Promise<void> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    const delta = new RegExp(`^${id}\\.\\d+\\.kvd$`);
    await Promise.all(names.filter((n) => delta.test(n) && !keep.has(n)).map((n) => rm(join(this.root, n), { force: true })));
  }

  private voided(id: string, ticket: number): boolean {
    return (this.deletedAt.get(id) ?? 0) > ticket;
  }

  /**
   * Restore `chat` from its snapshot when it matches this engine and the transcript's
   * conversation (`messages`, as conversationOf rebuilds it). A mismatch is deleted.
   */
  restore(id: string, chat: Conversation, messages: readonly ChatMessage[]): Promise<RestoreOutcome> {
    return this.chain(id, async (): Promise<RestoreOutcome> => {
      this.restoring.add(id);
      try {
        const { cache } = this.files(id);
        const checked = await checkSnapshot(this.files(id), this.root, id, chat.engine.info, messages);
        if (typeof checked === "string") {
          if (checked !== "no snapshot") await this.removeFiles(id);
          else this.onDisk.delete(id); // gone behind this store's back: the next save is whole
          return { kind: "none", reason: checked };
        }
        const deltas = (checked.deltas ?? []).map((d) => join(this.root, d.file));
        const adopted = await chat.restoreFromSnapshot(checked.conversation, cache, deltas);
        // What the next save may extend (a delta after these).
        if (adopted) this.onDisk.set(id, onDiskOf(this.publishedAt.get(id) ?? 0, checked));
        // Either way the snapshot's conversation is kept (its cache, or re-prefilled), context and all.
        const context = checked.context ? { context: checked.context } : {};
        if (adopted) return { kind: "snapshot", tokens: checked.ledger.length, ...context };
        await this.removeFiles(id);
        return { kind: "conversation", reason: "the cache file did not hold the conversation", ...context };
      } finally {
        this.restoring.delete(id);
      }
    });
  }

  /** Whether a chat has a snapshot on disk (its description; it is validated only on restore). */
  async has(id: string): Promise<boolean> {
    return stat(this.files(id).meta).then(() => true, () => false);
  }

  /** Forget a chat's snapshot (Reset Conversation, a chat closed for good); saves asked for before this never land. */
  delete(id: string): Promise<void> {
    this.files(id); // Refuses a bad id before anything is recorded for it.
    this.deletedAt.set(id, ++this.tickets);
    return this.chain(id, () => this.removeFiles(id));
  }

  /** A chat was closed and its snapshot is to be deleted soon: record it on disk, so a reload that ends this session first does not orphan the snapshot. */
  markClosed(id: string, closedAt: number): Promise<void> {
    const { closed } = this.files(id);
    return this.chain(id, () => replaceDurably(closed, JSON.stringify({ closedAt })));
  }

  /** The chat is open again: its snapshot stays. */
  unmarkClosed(id: string): Promise<void> {
    const { closed } = this.files(id);
    return this.chain(id, () => rm(closed, { force: true }));
  }

  /** Chats marked closed (and not opened again) at or before `cutoff` (ms): their snapshots are deleted. Resolves with their ids. */
  async deleteClosedBefore(cutoff: number): Promise<string[]> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    const deleted: string[] = [];
    for (const id of names.filter((n) => n.endsWith(".closed")).map((n) => n.slice(0, -".closed".length))) {
      if (!isChatId(id)) continue;
      const closedAt = await this.closedAt(id);
      if (closedAt === undefined || closedAt > cutoff) continue;
      const removed = await this.chain(id, async () => {
        if ((await this.closedAt(id)) === undefined) return false; // Opened again meanwhile.
        this.deletedAt.set(id, ++this.tickets);
        await this.removeFiles(id);
        return true;
      });
      if (removed) deleted.push(id);
    }
    return deleted;
  }

  private async closedAt(id: string): Promise<number | undefined> {
    try {
      const raw: unknown = JSON.parse(await readFile(this.files(id).closed, "utf8"));
      const at = (raw as { closedAt?: unknown } | null)?.closedAt;
      return typeof at === "number" && Number.isFinite(at) ? at : 0; // An unreadable tombstone: as old as can be.
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : 0;
    }
  }

  // KvFileOwner: the shared budget evicts this store's snapshots through these.

  owns(path: string): boolean {
    return dirname(path) === this.root;
  }

  pinned(): string[] {
    return [...this.restoring].flatMap((id) => {
      const { cache, meta } = this.files(id);
      return [cache, meta];
    });
  }

  evict(paths: readonly string[], writtenAt: number): Promise<boolean> {
    const id = basename(paths[0]).split(".")[0];
    if (!isChatId(id)) return Promise.resolve(false);
    return this.chain(id, async () => {
      if (this.restoring.has(id)) return false;
      const { cache, meta } = this.files(id);
      const times = await Promise.all([cache, meta].map((p) => stat(p).then((s) => s.mtimeMs, () => 0)));
      if (Math.max(...times) > writtenAt) return false; // Saved again since it was listed: no longer the oldest.
      await this.removeFiles(id);
      return true;
    });
  }

  private async removeFiles(id: string): Promise<void> {
    const { cache, meta, closed } = this.files(id);
    this.onDisk.delete(id);
    await rm(meta, { force: true });
    await rm(cache, { force: true });
    await this.removeDeltas(id, new Set());
    await rm(closed, { force: true });
  }

  private chain<T>(id: string, run: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(run);
    this.chains.set(id, next);
    void next.finally(() => {
      if (this.chains.get(id) === next) this.chains.delete(id);
    }).catch(() => undefined);
    return next;
  }
}


/** A backend that cannot write this cache, or nothing in it. */
class NothingToSave extends Error {}

async function removeTemporary(...paths: string[]): Promise<void> {
  await Promise.all(paths.map((p) => rm(p, { force: true })));
}
