import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The folder of this package's package.json, found by walking up from this file. */
export function packageRoot(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "stateful-chat") return dir;
      } catch {
        // not ours; keep walking
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}
