// Resuming a partial download without splicing two versions of a file. Beside `<dest>.part`
// lies `<dest>.part.json`: the checksum the partial is meant to end up with and the server's
// validator for it (a strong ETag, else Last-Modified). A resume continues only when the
// checksum expected now is the same one, asks with If-Range (a server whose file changed
// sends the whole file instead of the rest), and takes a 206 only for exactly the range it
// asked for. Anything else starts over from zero.

import { readFile, rm, writeFile } from "node:fs/promises";
import { isFileDigest, type FileDigest } from "./file-digest";

export interface PartialState {
  readonly digest: FileDigest;
  readonly validator?: string;
}

const stateFileOf = (partial: string): string => `${partial}.json`;

/** Undefined when there is no state, or it cannot be read: the partial cannot be trusted then. */
export async function readPartialState(partial: string): Promise<PartialState | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(stateFileOf(partial), "utf8"));
    if (typeof value !== "object" || value === null) return undefined;
    const { digest, validator } = value as Record<string, unknown>;
    if (!isFileDigest(digest) || (validator !== undefined && typeof validator !== "string")) return undefined;
    return { digest, validator };
  } catch {
    return undefined;
  }
}

export async function writePartialState(partial: string, state: PartialState): Promise<void> {
  await writeFile(stateFileOf(partial), JSON.stringify(state));
}

export async function removePartial(partial: string): Promise<void> {
  await rm(partial, { force: true });
  await rm(stateFileOf(partial), { force: true });
}

export async function removePartialState(partial: string): Promise<void> {
  await rm(stateFileOf(partial), { force: true });
}

export function resumeHeaders(offset: number, validator: string | undefined): Record<string, string> {
  if (offset === 0) return {};
  return validator ? { Range: `bytes=${offset}-`, "If-Range": validator } : { Range: `bytes=${offset}-` };
}

/** What If-Range may carry: a strong ETag (a weak one never matches), else Last-Modified. */
export function validatorOf(headers: Headers): string | undefined {
  const etag = headers.get("etag");
  if (etag && !etag.startsWith("W/")) return etag;
  return headers.get("last-modified") ?? undefined;
}

/** A 206 continues the partial only if it starts where the partial ends and runs to the file's end. */
export function isRequestedRange(headers: Headers, offset: number, fileSize: number | undefined): boolean {
  const match = headers.get("content-range")?.match(/^bytes (\d+)-(\d+)\/(\d+|\*)$/);
  if (!match) return false;
  const [start, end] = [Number(match[1]), Number(match[2])];
  const total = match[3] === "*" ? fileSize : Number(match[3]);
  if (start !== offset || (fileSize !== undefined && total !== fileSize)) return false;
  return total === undefined || end === total - 1;
}
