// Records what code under test asks of node:fs/promises (open, a handle's sync, rename), in
// order, so a test can check that a file was flushed before it was renamed into place and its
// folder after. The module's exports are patched for the duration of one test and restored.

import fsPromises from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { dirname } from "node:path";

export type FsEvent = { readonly op: "open" | "sync"; readonly path: string } | { readonly op: "rename"; readonly from: string; readonly to: string };

export class FsJournal {
  readonly events: FsEvent[] = [];
  private readonly restore: () => void;

  constructor() {
    const { open, rename } = fsPromises;
    const events = this.events;
    const patched = fsPromises as { open: typeof open; rename: typeof rename };
    patched.open = (async (...args: Parameters<typeof open>) => {
      const handle = await open(...args);
      const path = String(args[0]);
      events.push({ op: "open", path });
      const sync = handle.sync.bind(handle);
      handle.sync = async () => {
        await sync();
        events.push({ op: "sync", path });
      };
      return handle;
    }) as typeof open;
    patched.rename = (async (from, to) => {
      await rename(from, to);
      events.push({ op: "rename", from: String(from), to: String(to) });
    }) as typeof rename;
    syncBuiltinESMExports();
    this.restore = () => {
      patched.open = open;
      patched.rename = rename;
      syncBuiltinESMExports();
    };
  }

  stop(): void {
    this.restore();
  }

  /**
   * Why `file` was not published durably (its data flushed before the rename that put it in
   * place, and its folder flushed after), or undefined when it was. The last rename onto it counts.
   */
  notDurable(file: string): string | undefined {
    let at = -1;
    this.events.forEach((e, i) => {
      if (e.op === "rename" && e.to === file) at = i;
    });
    if (at < 0) return `${file} was not renamed into place`;
    const { from } = this.events[at] as { from: string };
    if (!this.events.slice(0, at).some((e) => e.op === "sync" && e.path === from)) return `${from} was renamed onto ${file} without being flushed`;
    if (!this.events.slice(at + 1).some((e) => e.op === "sync" && e.path === dirname(file))) return `${dirname(file)} was not flushed after the rename`;
    return undefined;
  }
}
