// Token lists as a hash chain over fixed-size blocks: the k-th hash covers every token of the
// first k blocks, so two lists share their first k blocks exactly when their k-th hashes are
// equal. The prefix store indexes its entries by these hashes and finds the longest stored
// prefix of a request without reading a stored token list (the tokens are still compared
// exactly before a cache is used: a hash only narrows the search).

import { createHash } from "node:crypto";

/** Tokens per block: a prefix is matched in whole blocks, then extended token by token. */
export const PREFIX_BLOCK_TOKENS = 256;

/** The tokens as bytes (uint32, little-endian): what is hashed and what the store writes. */
export function tokenBytes(tokens: readonly number[]): Buffer {
  const bytes = Buffer.alloc(tokens.length * 4);
  tokens.forEach((token, i) => bytes.writeUInt32LE(token, i * 4));
  return bytes;
}

/** The tokens in `bytes`, or undefined when it cannot be a token list. */
export function tokensOfBytes(bytes: Buffer): number[] | undefined {
  if (bytes.length % 4 !== 0) return undefined;
  const out: number[] = [];
  for (let offset = 0; offset < bytes.length; offset += 4) out.push(bytes.readUInt32LE(offset));
  return out;
}

export function tokensSha256(tokens: readonly number[]): string {
  return createHash("sha256").update(tokenBytes(tokens)).digest("hex");
}

/** One hash per whole block of `tokens` (a trailing partial block has none). */
export function blockHashes(tokens: readonly number[], blockTokens = PREFIX_BLOCK_TOKENS): string[] {
  const out: string[] = [];
  let previous = "";
  for (let start = 0; start + blockTokens <= tokens.length; start += blockTokens) {
    previous = createHash("sha256").update(previous).update(tokenBytes(tokens.slice(start, start + blockTokens))).digest("hex").slice(0, 32);
    out.push(previous);
  }
  return out;
}

/** Leading blocks two chains share. */
export function sharedBlocks(a: readonly string[], b: readonly string[]): number {
  const end = Math.min(a.length, b.length);
  let count = 0;
  while (count < end && a[count] === b[count]) count++;
  return count;
}
