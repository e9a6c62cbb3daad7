// The extension host runs JavaScript only: bundle suite/index.ts and each suite/*.test.ts to
// out/test/integration/. `vscode` comes from the host; mocha is required from node_modules
// (bundling it breaks its dynamic reporter loading) and must be the same instance for the
// index and the test files.

import { readdirSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";

export async function compileSuite(repo: string): Promise<string> {
  const suiteDir = join(repo, "test", "integration", "suite");
  const outdir = join(repo, "out", "test", "integration");
  const entries = readdirSync(suiteDir)
    .filter((f) => f === "index.ts" || f.endsWith(".test.ts"))
    .map((f) => join(suiteDir, f));
  await esbuild.build({
    entryPoints: entries,
    outdir,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    sourcemap: "inline",
    external: ["vscode", "mocha"],
    logLevel: "warning",
  });
  return join(outdir, "index.js");
}
