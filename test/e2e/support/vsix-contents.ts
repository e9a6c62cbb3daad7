// Reading a packaged VSIX: its file list, and its extension/ folder extracted somewhere
// outside the repo so that Node's module resolution cannot fall back to the repo's own
// node_modules (which would hide a dependency missing from the VSIX).

import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

function python(code: string, ...args: string[]): string {
  const result = spawnSync("python3", ["-c", code, ...args], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`python3 failed: ${result.stderr}`);
  return result.stdout;
}

/** Paths inside the VSIX, without the `extension/` prefix. */
export function vsixFiles(vsix: string): string[] {
  const names = python("import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", vsix);
  return names
    .split("\n")
    .filter((n) => n.startsWith("extension/"))
    .map((n) => n.slice("extension/".length));
}

/** Extracts the VSIX into a fresh temp folder (outside the repo) and returns its extension/ folder. */
export function extractVsix(vsix: string): { readonly root: string; readonly extension: string } {
  const root = mkdtempSync(join(tmpdir(), "stateful-chat-vsix-"));
  // zipfile keeps no unix modes; nothing in the VSIX needs the executable bit to be loaded.
  python("import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])", vsix, root);
  return { root, extension: join(root, "extension") };
}
