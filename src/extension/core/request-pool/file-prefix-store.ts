// The prefix store on disk, one folder per model (prefix-entry.ts: the files of one entry).
// The index (each entry's block hashes) is read from the descriptions on first use, so
// entries outlive a restart. Only entries made under this store's key are used: one made
// with another model file or context size stays for that one, until the disk budget evicts
// it. Every use re-checks the token list's hash and the cache file's size, and the backend
// checks the tokens the file holds; anything off deletes the entry and the request is
// prefilled instead. Entries count against the one KV disk budget, least recently used first
// (a use touches the description's time, which the budget orders by), and the store keeps at
// most `maxEntries`; an entry being read, loaded or written is pinned. Its files hold prompts:
// the user's only (0600, folder 0700). They are not flushed to the disk (that would hold the
// pool's queue): an entry a power loss cut short fails the checks above and is deleted.

import { readdir, readFile, rename, rm, stat, utimes } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { makeFilePrivate, makePrivateFolder, writePrivateFile } from "../disk/private-files";
import { temporaryPath } from "../disk/temporary-files";
import type { KvDiskBudget, KvFileOwner } from "./kv-disk-budget";
import { blockHashes, PREFIX_BLOCK_TOKENS, sharedBlocks, tokenBytes, tokensOfBytes, tokensSha256 } from "./prefix-blocks";
import { parsePrefixMeta, PREFIX_FILE, prefixEntryFiles, prefixEntryId, type PrefixEntryFiles, type PrefixEntryMeta } from "./prefix-entry";
import type { PrefixHit, PrefixStore } from "./prefix-store";
import { commonTokenPrefix } from "./token-prefix";

export interface FilePrefixStoreOptions {
  readonly dir: string;
  /**
   * What a cache file must have been made with to be loaded here (the shell builds it from the
   * backend, the model file's identity and the context size): another key's entries are never used.
   */
  readonly key: string;
  /** The disk budget every KV file shares: it evicts entries; at 0 bytes none are written. */
  readonly budget?: KvDiskBudget;
  /** Entries of this key kept at most, least recently used dropped first. Defaults to 8. */
  readonly maxEntries?: number;
  /** When an entry is written or used (ms); also set as its description's file time. Defaults to Date.now (tests inject a clock). */
  readonly now?: () => number;
}

interface Indexed {
  readonly id: string;
  readonly length: number;
  readonly blocks: readonly string[];
  readonly tokensSha256: string;
  readonly cacheBytes: number;
  /** Last written or used (ms). */
  usedAt: number;
}

interface Best {
  readonly entry: Indexed;
  readonly tokens: number[];
  readonly shared: number;
}

export class FilePrefixStore implements PrefixStore {
  private index: Promise<Map<string, Indexed>> | undefined;
  /** Entries being read, loaded or written (counted: several uses may overlap). */
  private readonly pins = new Map<string, number>();
  private readonly unregister: () => void;

  constructor(private readonly options: FilePrefixStoreOptions) {
    this.unregister = options.budget?.register(this.fileOwner()) ?? (() => undefined);
  }

  async restore(tokens: readonly number[], minShared: number, adopt: (hit: PrefixHit) => Promise<boolean>): Promise<PrefixHit | undefined> {
    return this.pinning(async (pin) => {
      const best = await this.best(tokens, pin);
      if (!best || best.shared < minShared) return undefined;
      const files = this.files(best.entry.id);
      const hit: PrefixHit = { tokens: best.tokens, shared: best.shared, cachePath: files.cache };
      const size = await stat(files.cache).then((s) => s.size, () => -1);
      // A truncated or replaced file is refused before the backend sees it; the backend's own
      // tokens are compared with the entry's by `adopt`.
      if (size !== best.entry.cacheBytes || !(await adopt(hit))) {
        await this.remove(best.entry.id);
        return undefined;
      }
      await this.touch(best.entry);
      return hit;
    });
  }

  shared(tokens: readonly number[]): Promise<number> {
    return this.pinning(async (pin) => (await this.best(tokens, pin))?.shared ?? 0);
  }

  async save(tokens: readonly number[], write: (path: string) => Promise<number | undefined>): Promise<boolean> {
    const budget = this.options.budget;
    if (tokens.length === 0 || (budget && budget.bytes() <= 0)) return false;
    const index = await this.entries();
    const sha = tokensSha256(tokens);
    const id = prefixEntryId(this.options.key, sha);
    const known = index.get(id);
    if (known) {
      await this.touch(known); // The same prefix again: one entry, used now.
      return false;
    }
    const files = this.files(id);
    const temp: PrefixEntryFiles = { cache: temporaryPath(files.cache), tokens: temporaryPath(files.tokens), meta: temporaryPath(files.meta) };
    try {
      await this.pinning(async (pin) => {
        pin(id);
        await makePrivateFolder(this.options.dir);
        if ((await write(temp.cache)) === undefined) return;
        await makeFilePrivate(temp.cache); // The backend wrote it.
        const meta: PrefixEntryMeta = {
          version: 1,
          key: this.options.key,
          length: tokens.length,
          blockTokens: PREFIX_BLOCK_TOKENS,
          blocks: blockHashes(tokens),
          tokensSha256: sha,
          cacheBytes: (await stat(temp.cache)).size,
        };
        await writePrivateFile(temp.tokens, tokenBytes(tokens));
        await writePrivateFile(temp.meta, JSON.stringify(meta));
        await rename(temp.cache, files.cache);
        await rename(temp.tokens, files.tokens);
        await rename(temp.meta, files.meta); // Last: a description always names complete files.
        const entry = indexedOf(id, meta, 0);
        index.set(id, entry);
        await this.touch(entry);
      });
    } finally {
      await Promise.all(Object.values(temp).map((path) => rm(path, { force: true })));
    }
    const added = index.get(id);
    if (!added) return false;
    await this.dropCoveredBy(added, tokens);
    await this.trim(id);
    // Not awaited: the budget may wait on a panel's snapshot being written.
    if (budget) void budget.enforce(files.cache).catch(() => undefined);
    return true;
  }

  /** Stops taking part in the disk budget (the entries stay on disk). */
  dispose(): void {
    this.unregister();
  }

  /**
   * The entry sharing the most leading tokens with `tokens`: whole blocks by hash, then its
   * token list read and compared exactly. Entries read are pinned through `pin`.
   */
  private async best(tokens: readonly number[], pin: (id: string) => void): Promise<Best | undefined> {
    const wanted = blockHashes(tokens);
    const ranked = [...(await this.entries()).values()].map((entry) => ({ entry, blocks: sharedBlocks(entry.blocks, wanted) }));
    const most = Math.max(0, ...ranked.map((r) => r.blocks));
    if (most === 0) return undefined;
    let best: Best | undefined;
    // Entries sharing the most blocks: among them the exact prefix decides (most recently used first on a tie).
    for (const { entry } of ranked.filter((r) => r.blocks === most).sort((a, b) => b.entry.usedAt - a.entry.usedAt)) {
      pin(entry.id);
      const held = await this.readTokens(entry);
      if (!held) {
        await this.remove(entry.id); // Damaged: never used.
        continue;
      }
      const shared = commonTokenPrefix(held, tokens);
      if (!best || shared > best.shared) best = { entry, tokens: held, shared };
    }
    return best;
  }

  /** The entry's tokens, when the file has the length and hash its description says. */
  private async readTokens(entry: Indexed): Promise<number[] | undefined> {
    const bytes = await readFile(this.files(entry.id).tokens).catch(() => undefined);
    const tokens = bytes && tokensOfBytes(bytes);
    return tokens && tokens.length === entry.length && tokensSha256(tokens) === entry.tokensSha256 ? tokens : undefined;
  }

  /** Entries whose every token the new one holds are redundant: any request they serve, it serves as well. */
  private async dropCoveredBy(added: Indexed, tokens: readonly number[]): Promise<void> {
    for (const entry of (await this.entries()).values()) {
      if (entry.id === added.id || entry.length > added.length || this.pins.has(entry.id)) continue;
      if (sharedBlocks(entry.blocks, added.blocks) < entry.blocks.length) continue;
      const held = await this.readTokens(entry);
      if (!held || commonTokenPrefix(held, tokens) === held.length) await this.remove(entry.id);
    }
  }

  private async trim(keep: string): Promise<void> {
    const index = await this.entries();
    const max = this.options.maxEntries ?? 8;
    const oldestFirst = [...index.values()].filter((e) => e.id !== keep && !this.pins.has(e.id)).sort((a, b) => a.usedAt - b.usedAt);
    while (index.size > max && oldestFirst.length > 0) await this.remove(oldestFirst.shift()!.id);
  }

  private entries(): Promise<Map<string, Indexed>> {
    this.index ??= this.readIndex();
    return this.index;
  }

  /** The descriptions on disk: damaged ones deleted, another key's left alone. */
  private async readIndex(): Promise<Map<string, Indexed>> {
    const index = new Map<string, Indexed>();
    const names = await readdir(this.options.dir).catch(() => [] as string[]);
    for (const name of names) {
      const match = PREFIX_FILE.exec(name);
      if (!match || match[2] !== "json") continue;
      const id = match[1]!;
      const files = this.files(id);
      let meta: PrefixEntryMeta | undefined;
      try {
        meta = parsePrefixMeta(JSON.parse(await readFile(files.meta, "utf8")));
      } catch {
        meta = undefined;
      }
      if (!meta || meta.blockTokens !== PREFIX_BLOCK_TOKENS || prefixEntryId(meta.key, meta.tokensSha256) !== id) {
        await removeFiles(files);
        continue;
      }
      if (meta.key !== this.options.key) continue;
      const usedAt = await stat(files.meta).then((s) => s.mtimeMs, () => 0);
      index.set(id, indexedOf(id, meta, usedAt));
    }
    return index;
  }

  private async touch(entry: Indexed): Promise<void> {
    entry.usedAt = (this.options.now ?? Date.now)();
    const at = new Date(entry.usedAt);
    await utimes(this.files(entry.id).meta, at, at).catch(() => undefined);
  }

  private async remove(id: string): Promise<void> {
    (await this.index)?.delete(id);
    await removeFiles(this.files(id));
  }

  private files(id: string): PrefixEntryFiles {
    return prefixEntryFiles(this.options.dir, id);
  }

  /** Runs `work` with the entries it pins kept from the budget until it ends. */
  private async pinning<T>(work: (pin: (id: string) => void) => Promise<T>): Promise<T> {
    const held: string[] = [];
    try {
      return await work((id) => {
        held.push(id);
        this.pins.set(id, (this.pins.get(id) ?? 0) + 1);
      });
    } finally {
      for (const id of held) {
        const left = (this.pins.get(id) ?? 1) - 1;
        if (left > 0) this.pins.set(id, left);
        else this.pins.delete(id);
      }
    }
  }

  /** The entries as the disk budget sees them: evicted through here (pinned ones refused, a used one kept). */
  private fileOwner(): KvFileOwner {
    const dir = this.options.dir;
    return {
      owns: (path) => dirname(path) === dir && PREFIX_FILE.test(basename(path)),
      pinned: () => [...this.pins.keys()].flatMap((id) => Object.values(this.files(id))),
      evict: async (paths, writtenAt) => {
        const id = PREFIX_FILE.exec(basename(paths[0] ?? ""))?.[1];
        if (!id || this.pins.has(id)) return false;
        const times = await Promise.all(Object.values(this.files(id)).map((p) => stat(p).then((s) => s.mtimeMs, () => 0)));
        if (Math.max(...times) > writtenAt) return false; // Used since it was listed: no longer the oldest.
        await this.remove(id);
        return true;
      },
    };
  }
}

function indexedOf(id: string, meta: PrefixEntryMeta, usedAt: number): Indexed {
  return { id, length: meta.length, blocks: meta.blocks, tokensSha256: meta.tokensSha256, cacheBytes: meta.cacheBytes, usedAt };
}

/** Description first: a half-removed entry is never taken for a complete one. */
async function removeFiles(files: PrefixEntryFiles): Promise<void> {
  await rm(files.meta, { force: true }).catch(() => undefined);
  await Promise.all([files.cache, files.tokens].map((path) => rm(path, { force: true }).catch(() => undefined)));
}
