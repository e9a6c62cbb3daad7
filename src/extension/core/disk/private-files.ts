// Files that hold a user's code and prompts (transcripts, KV snapshots, prefix caches): readable
// by that user only (0600, folders 0700), and durable. A rename alone is atomic but not durable:
// after a power loss the new name can point at a file whose data never reached the disk (an
// empty transcript), so the data is flushed before the rename and the folder after it.

import { chmod, mkdir, open, rename, rm, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { temporaryPath } from "./temporary-files";

const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_FOLDER_MODE = 0o700;

/** Creates `dir` (and missing parents) for the user only; an existing one is made so too (earlier versions made them 0755). */
export async function makePrivateFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  await chmod(dir, PRIVATE_FOLDER_MODE);
}

/**
 * Writes a new file (a temporary name: an existing file is refused) for the user only. Flushed
 * to the disk before this resolves when `flush` is set; else `sealFile` flushes it later (off a
 * chat's queue: a flush can wait on every dirty page of the file system).
 */
export async function writePrivateFile(path: string, data: string | Uint8Array, options: { readonly flush?: boolean } = {}): Promise<void> {
  const handle = await open(path, "wx", PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(data);
    if (options.flush) await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A file another writer made (a backend's KV cache file) made the user's only. */
export async function makeFilePrivate(path: string): Promise<void> {
  await chmod(path, PRIVATE_FILE_MODE);
}

/** A written file, before it is renamed into place: the user's only, and on the disk. */
export async function sealFile(path: string): Promise<void> {
  await makeFilePrivate(path);
  const handle = await open(path, "r+");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes a folder's entries (the renames into it) to the disk. Where a folder cannot be opened or flushed (Windows), a rename is as durable as it gets. */
export async function syncFolder(dir: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(dir, "r");
  } catch (error) {
    if (unsupported(error)) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!unsupported(error)) throw error;
  } finally {
    await handle.close();
  }
}

/** Replaces `file` with `data` in one step that survives a crash or a power loss: old content or new, never an empty or partial file. */
export async function replaceDurably(file: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(file);
  await makePrivateFolder(dir);
  const temp = temporaryPath(file);
  try {
    await writePrivateFile(temp, data, { flush: true });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await syncFolder(dir);
}

function unsupported(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "EISDIR" || code === "EPERM" || code === "EACCES" || code === "EINVAL" || code === "ENOTSUP";
}
