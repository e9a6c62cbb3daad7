// One scratch folder per code-server profile: user data, extensions, XDG dirs and TMPDIR,
// so a run touches neither $HOME nor /tmp and can be wiped by deleting one folder.

import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";

export interface Scratch {
  readonly root: string;
  readonly userDataDir: string;
  readonly extensionsDir: string;
  /** Environment overrides: XDG_* and TMPDIR inside `root`. */
  readonly env: Readonly<Record<string, string>>;
}

/** Creates (or reuses) `<runs>/<name>`; `fresh` wipes it first (tests want a clean profile). */
export function prepareScratch(runs: string, name: string, fresh: boolean): Scratch {
  const root = join(runs, name);
  if (fresh) rmSync(root, { recursive: true, force: true });
  const dirs = {
    userDataDir: join(root, "user-data"),
    extensionsDir: join(root, "extensions"),
    XDG_CONFIG_HOME: join(root, "xdg", "config"),
    XDG_DATA_HOME: join(root, "xdg", "data"),
    XDG_CACHE_HOME: join(root, "xdg", "cache"),
    XDG_STATE_HOME: join(root, "xdg", "state"),
    XDG_RUNTIME_DIR: join(root, "xdg", "runtime"),
    TMPDIR: join(root, "tmp"),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { userDataDir, extensionsDir, ...env } = dirs;
  return { root, userDataDir, extensionsDir, env };
}
