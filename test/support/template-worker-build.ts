// The template sandbox's worker, bundled from the current source for the tests that exercise
// it (the product starts out/template-worker.js; a test must not run a stale build of it).
// The worker cannot run from TypeScript under tsx: see templateWorkerEntry().

import { buildSync } from "esbuild";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./default-model";

let built: string | undefined;

export function templateWorkerFromSource(): string {
  if (built) return built;
  const outfile = join(mkdtempSync(join(tmpdir(), "stateful-chat-template-worker-")), "template-worker.js");
  buildSync({
    entryPoints: [join(repoRoot, "src", "extension", "core", "template-sandbox", "template-worker.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    logLevel: "warning",
  });
  built = outfile;
  return outfile;
}
