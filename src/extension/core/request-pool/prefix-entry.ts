// One stored prefix on disk: `prefix-<id>.kv` (the backend's cache file), `prefix-<id>.tokens`
// (the tokens it holds, uint32 little-endian) and `prefix-<id>.json` (this description, written
// last: its presence means the other two are complete). The description is what the store's
// index is built from, so it carries the block hashes but not the tokens.

import { createHash } from "node:crypto";
import { join } from "node:path";

export interface PrefixEntryMeta {
  readonly version: 1;
  /** What makes the cache file loadable (model file, backend, context size): see FilePrefixStoreOptions.key. */
  readonly key: string;
  /** Tokens the cache holds. */
  readonly length: number;
  readonly blockTokens: number;
  /** prefix-blocks.ts's chain over the tokens' whole blocks. */
  readonly blocks: readonly string[];
  readonly tokensSha256: string;
  /** Size of the cache file; another size is a truncated or foreign file. */
  readonly cacheBytes: number;
}

// A type, not an interface: Object.values() of it is string[].
export type PrefixEntryFiles = {
  readonly cache: string;
  readonly tokens: string;
  readonly meta: string;
};

const ID = /^[0-9a-f]{32}$/;
/** The files of one entry share the stem `prefix-<id>` (the KV disk budget groups files by stem). */
export const PREFIX_FILE = /^prefix-([0-9a-f]{32})\.(kv|tokens|json)$/;

/** An entry's id: its key and tokens hashed, so the same prefix saved twice is one entry. */
export function prefixEntryId(key: string, tokensSha: string): string {
  return createHash("sha256").update(key).update("\0").update(tokensSha).digest("hex").slice(0, 32);
}

export function prefixEntryFiles(dir: string, id: string): PrefixEntryFiles {
  if (!ID.test(id)) throw new Error(`not a prefix entry id: ${id}`);
  const stem = join(dir, `prefix-${id}`);
  return { cache: `${stem}.kv`, tokens: `${stem}.tokens`, meta: `${stem}.json` };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0;

/** A parsed description, or undefined when any field is off. */
export function parsePrefixMeta(raw: unknown): PrefixEntryMeta | undefined {
  if (!isObject(raw) || raw.version !== 1 || typeof raw.key !== "string" || typeof raw.tokensSha256 !== "string") return undefined;
  if (!isCount(raw.length) || raw.length === 0 || !isCount(raw.blockTokens) || raw.blockTokens === 0 || !isCount(raw.cacheBytes)) return undefined;
  const blocks = raw.blocks;
  if (!Array.isArray(blocks) || !blocks.every((b) => typeof b === "string") || blocks.length !== Math.floor(raw.length / raw.blockTokens)) return undefined;
  return raw as unknown as PrefixEntryMeta;
}
