// Copies a folder tree by hard links (the same bytes, no copy time; the staging folder lives
// in .cache on the repository's file system), falling back to a copy across file systems.
import { copyFileSync, linkSync, mkdirSync, readdirSync, readlinkSync, symlinkSync } from "node:fs";
import { join } from "node:path";

/** `skip` gets the path relative to `from` with `/` separators; a skipped folder is not entered. */
export function linkTree(from: string, to: string, skip: (relative: string) => boolean = () => false, relative = ""): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const rel = relative ? `${relative}/${entry.name}` : entry.name;
    if (skip(rel)) continue;
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) linkTree(source, target, skip, rel);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else linkFile(source, target);
  }
}

export function linkFile(source: string, target: string): void {
  try {
    linkSync(source, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    copyFileSync(source, target);
  }
}
