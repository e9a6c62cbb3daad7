// What a downloaded file is checked against: a sha256 (pinned, or the LFS oid the hub
// announces), a sha512 (an npm package's integrity, from package-lock.json), or, for a small non-LFS file of a repository, its git blob id (sha1 of
// "blob <size>\0" + bytes), the only checksum the hub's tree lists for such a file.

import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";

export type FileDigest = { readonly kind: "sha256" | "sha512" | "git-blob-sha1"; readonly hex: string };

export const sameDigest = (a: FileDigest, b: FileDigest): boolean => a.kind === b.kind && a.hex === b.hex;

export const describeDigest = (digest: FileDigest): string => `${digest.kind} ${digest.hex}`;

export function isFileDigest(value: unknown): value is FileDigest {
  if (typeof value !== "object" || value === null) return false;
  const { kind, hex } = value as Record<string, unknown>;
  return (kind === "sha256" || kind === "sha512" || kind === "git-blob-sha1") && typeof hex === "string" && /^[0-9a-f]+$/.test(hex);
}

export async function digestOfFile(path: string, kind: FileDigest["kind"]): Promise<string> {
  const hash = createHash(kind === "git-blob-sha1" ? "sha1" : kind);
  if (kind === "git-blob-sha1") hash.update(`blob ${(await stat(path)).size}\0`);
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** False also when the file is missing. */
export async function fileMatches(path: string, digest: FileDigest): Promise<boolean> {
  try {
    return (await digestOfFile(path, digest.kind)) === digest.hex;
  } catch {
    return false;
  }
}
