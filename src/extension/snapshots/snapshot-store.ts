// KV snapshots on disk, one per chat: `<id>.kv` (the backend's cache file) and `<id>.json`
// (what it was made with and the conversation it holds), both written to temporary names
// and renamed into place. A snapshot is loaded only when model, backend, context size,
// ledger and file size all match; anything else is deleted, never loaded. A disk budget
// evicts the oldest snapshots.

import { randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ChatSession } from "../core/chat-session";
import type { ChatMessage } from "../core/chat-template";
import type { EngineInfo } from "../core/engine";
import { modelIdentity, sameModel } from "./model-identity";
import { ledgerHash, ledgerOf, parseMeta, type SnapshotMeta } from "./snapshot-meta";

export const DEFAULT_SNAPSHOT_BUDGET_BYTES = 2 * 1024 ** 3;

/** What a restore did: the cache loaded, only the conversation (re-prefilled), or nothing usable. */
export type RestoreOutcome =
  | { readonly kind: "snapshot"; readonly tokens: number }
  | { readonly kind: "conversation"; readonly reason: string }
  | { readonly kind: "none"; readonly reason: string };

export class SnapshotStore {
  /** Saves and deletes per chat run in order, so an old save never lands after a delete. */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    private readonly root: string,
    /** Bytes all snapshots may take together; 0 turns snapshots off. */
    private readonly budgetBytes: () => number = () => DEFAULT_SNAPSHOT_BUDGET_BYTES,
  ) {}

  private files(id: string): { cache: string; meta: string } {
    if (!/^[\w-]+$/.test(id)) throw new Error(`not a snapshot id: ${id}`);
    return { cache: join(this.root, `${id}.kv`), meta: join(this.root, `${id}.json`) };
  }

  /**
   * Save the chat's cache and conversation. Queued on the chat at once (behind its running
   * turn, before anything sent later), so closing the chat right after a turn still saves.
   * Returns the meta written, or undefined when there was nothing to save or the backend cannot.
   */
  async save(id: string, chat: ChatSession): Promise<SnapshotMeta | undefined> {
    if (this.budgetBytes() <= 0) return undefined;
    const info = chat.engine.info;
    const { cache, meta } = this.files(id);
    const written = await chat.saveSnapshot(async (conversation, writeCache) => {
      const tempCache = `${cache}.${randomUUID()}.tmp`;
      const tempMeta = `${meta}.${randomUUID()}.tmp`;
      try {
        await mkdir(this.root, { recursive: true });
        const bytes = await writeCache(tempCache);
        if (bytes === undefined) return undefined;
        const tokens = ledgerOf(conversation);
        const description: SnapshotMeta = {
          version: 1,
          id,
          savedAt: new Date().toISOString(),
          backend: info.backend,
          model: await modelIdentity(info.modelPath),
          contextSize: info.capacity,
          ledger: { length: tokens.length, sha256: ledgerHash(tokens) },
          cacheBytes: (await stat(tempCache)).size,
          conversation,
        };
        await writeFile(tempMeta, JSON.stringify(description), "utf8");
        // Cache first, description last: a description always names a complete cache file.
        await rename(tempCache, cache);
        await rename(tempMeta, meta);
        return description;
      } finally {
        await rm(tempCache, { force: true });
        await rm(tempMeta, { force: true });
      }
    });
    if (written) await this.chain(id, () => this.enforceBudget(id));
    return written;
  }

  /**
   * Resume `chat` from its snapshot when it matches this engine and the transcript's
   * conversation (`messages`, as conversationOf rebuilds it). A mismatch is deleted.
   */
  restore(id: string, chat: ChatSession, messages: readonly ChatMessage[]): Promise<RestoreOutcome> {
    return this.chain(id, async (): Promise<RestoreOutcome> => {
      const { cache } = this.files(id);
      const checked = await this.check(id, chat.engine.info, messages);
      if (typeof checked === "string") {
        if (checked !== "no snapshot") await this.removeFiles(id);
        return { kind: "none", reason: checked };
      }
      const adopted = await chat.resume(checked.conversation, cache);
      if (adopted) return { kind: "snapshot", tokens: checked.ledger.length };
      await this.removeFiles(id);
      return { kind: "conversation", reason: "the cache file did not hold the conversation" };
    });
  }

  /** Whether a chat has a snapshot on disk (its description; it is validated only on restore). */
  async has(id: string): Promise<boolean> {
    return stat(this.files(id).meta).then(() => true, () => false);
  }

  /** Forget a chat's snapshot (Reset Conversation, a chat closed for good). */
  delete(id: string): Promise<void> {
    return this.chain(id, () => this.removeFiles(id));
  }

  /** Why the snapshot cannot be used, or its meta when it can. */
  private async check(id: string, info: EngineInfo, messages: readonly ChatMessage[]): Promise<SnapshotMeta | string> {
    const { cache, meta: metaFile } = this.files(id);
    let raw: string;
    try {
      raw = await readFile(metaFile, "utf8");
    } catch {
      return "no snapshot";
    }
    let meta: SnapshotMeta | undefined;
    try {
      meta = parseMeta(JSON.parse(raw));
    } catch {
      meta = undefined;
    }
    if (!meta || meta.id !== id) return "unreadable snapshot description";
    if (meta.backend !== info.backend) return `made with ${meta.backend}, not ${info.backend}`;
    if (!sameModel(meta.model, await modelIdentity(info.modelPath))) return "made with another model file";
    if (meta.contextSize !== info.capacity) return `made for context size ${meta.contextSize}, not ${info.capacity}`;
    const size = await stat(cache).then((s) => s.size, () => -1);
    if (size !== meta.cacheBytes) return size < 0 ? "cache file missing" : `cache file is ${size} bytes, expected ${meta.cacheBytes} (truncated)`;
    if (!sameConversation(meta.conversation.prompt.messages, messages)) return "the transcript's conversation differs";
    return meta;
  }

  private async removeFiles(id: string): Promise<void> {
    const { cache, meta } = this.files(id);
    await rm(meta, { force: true });
    await rm(cache, { force: true });
  }

  /** Oldest snapshots go first until all fit the budget (the one just saved last). */
  private async enforceBudget(justSaved: string): Promise<void> {
    const budget = this.budgetBytes();
    const names = await readdir(this.root).catch(() => [] as string[]);
    const entries: Array<{ id: string; bytes: number; time: number }> = [];
    for (const name of names.filter((n) => n.endsWith(".json"))) {
      const id = name.slice(0, -".json".length);
      const [meta, kv] = await Promise.all([stat(join(this.root, name)).catch(() => undefined), stat(join(this.root, `${id}.kv`)).catch(() => undefined)]);
      if (meta) entries.push({ id, bytes: meta.size + (kv?.size ?? 0), time: id === justSaved ? Infinity : meta.mtimeMs });
    }
    entries.sort((a, b) => a.time - b.time);
    let total = entries.reduce((sum, e) => sum + e.bytes, 0);
    for (const entry of entries) {
      if (total <= budget) break;
      await (entry.id === justSaved ? this.removeFiles(entry.id) : this.delete(entry.id));
      total -= entry.bytes;
    }
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

/**
 * The snapshot's conversation is the transcript's: same turns, same replies. A user message
 * in the prompt may carry workspace context before the text the transcript shows.
 */
function sameConversation(saved: readonly ChatMessage[], transcript: readonly ChatMessage[]): boolean {
  const turns = saved.filter((m) => m.role !== "system");
  if (turns.length !== transcript.length) return false;
  return turns.every((m, i) => {
    const t = transcript[i];
    if (m.role !== t.role) return false;
    return m.role === "assistant" ? m.content === t.content : m.content.trim().endsWith(t.content.trim());
  });
}
