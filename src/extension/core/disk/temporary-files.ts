// A save is written under a temporary name beside its final file, then renamed into place.
// The name carries the pid of the process that will rename it, so a sweep can tell an orphan
// (VS Code closed or crashed mid-save) from a save another window is writing right now: the
// extension's global storage is one folder shared by every window.

import { randomUUID } from "node:crypto";

const SUFFIX = ".tmp";

/**
 * A temporary file untouched this long is an orphan even when a process with its pid runs (the
 * pid was reused, or the file was made by an older version that did not name its pid). A save
 * writes for seconds and is renamed right after, so a live one is never this old.
 */
export const STALE_TEMPORARY_MS = 15 * 60_000;

/** A fresh temporary name for `file`, in its folder (a rename never crosses file systems). */
export function temporaryPath(file: string): string {
  return `${file}.${process.pid}-${randomUUID()}${SUFFIX}`;
}

export function isTemporaryName(name: string): boolean {
  return name.endsWith(SUFFIX);
}

/** The pid a temporary name was made by, or undefined for a name not made by `temporaryPath`. */
function ownerOf(name: string): number | undefined {
  const match = /\.(\d+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** Whether a process with this pid runs (one of another user's counts: EPERM). */
function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether a temporary file is left over rather than a save being written: untouched for
 * STALE_TEMPORARY_MS, or made by a process that is gone. This process's own and another live
 * window's recent files are never stale. (A home folder shared over the network by two machines
 * can make another machine's live save look orphaned; that save then fails and is retried whole.)
 */
export function isStaleTemporary(name: string, modifiedMs: number, now: number = Date.now(), alive: (pid: number) => boolean = isProcessAlive): boolean {
  if (now - modifiedMs >= STALE_TEMPORARY_MS) return true;
  const owner = ownerOf(name);
  return owner !== undefined && owner !== process.pid && !alive(owner);
}
