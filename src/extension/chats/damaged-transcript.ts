// A chat's transcript file that cannot be read (cut short or emptied by a crash or a power loss,
// or written by something else) is moved aside, never overwritten: the chat starts empty, the
// user is told where the old file is, and what it held can still be recovered by hand.

import { readdir, rename, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { syncFolder } from "../core/disk/private-files";

/** Moves `file` to the first free `<name>.corrupt`, `<name>.1.corrupt`, …; resolves with that path. */
export async function keepAside(file: string): Promise<string> {
  const dir = dirname(file);
  const taken = new Set(await readdir(dir));
  let keptAs = `${basename(file)}.corrupt`;
  for (let n = 1; taken.has(keptAs) || (await exists(join(dir, keptAs))); n++) keptAs = `${basename(file)}.${n}.corrupt`;
  await rename(file, join(dir, keptAs));
  await syncFolder(dir);
  return join(dir, keptAs);
}

/** What the chat says when its transcript was kept aside. */
export function damagedTranscriptNotice(keptAs: string): string {
  return `This chat's saved transcript could not be read (a crash or power loss can cut a file short), so the chat starts empty. The file was kept, not overwritten: ${keptAs}`;
}

function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}
