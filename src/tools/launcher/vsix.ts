// Packages this machine's VSIX for `npm start` and the e2e suite: the production bundle, then
// the packaging tool's VSIX for this machine's target (src/tools/packaging/): node-llama-cpp is
// external to the esbuild bundle (ESM + native binaries), so the VSIX carries it in
// node_modules with this platform's prebuilts only (the VSIX is therefore platform-specific).

import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { packageTarget } from "../packaging/package-target";
import { hostTarget } from "../packaging/targets";
import { runCommand } from "./run-command";

/** vsce's target for this machine (linux-x64, darwin-arm64, …): the VSIX carries this platform's
 * node-llama-cpp binaries only, so it says so and VS Code refuses it elsewhere. */
export function vsceTarget(): string {
  return hostTarget();
}

export interface VsixResult {
  readonly path: string;
  readonly bytes: number;
}

/** Production bundle + `vsce package --target <this machine>` into `out`. Prompts are impossible
 * (stdin is inherited but every question vsce could ask is pre-answered by a flag). */
export async function packageVsix(repo: string, out: string, log: (line: string) => void): Promise<VsixResult> {
  mkdirSync(dirname(out), { recursive: true });
  log("Bundling (production)…");
  await runCommand(process.execPath, ["esbuild.mjs", "--production"], { cwd: repo });
  // Installed here only: it may carry the native build of ours when there is no portable one.
  const packaged = await packageTarget(repo, hostTarget(), out, log, { forThisMachine: true });
  return { path: packaged.path, bytes: packaged.bytes };
}

/** `node esbuild.mjs` when out/extension.js is missing (a fresh clone that skipped `npm run build`). */
export async function ensureBuilt(repo: string, log: (line: string) => void): Promise<void> {
  if (["extension.js", "extension-features.js", "cli.js"].every((file) => existsSync(join(repo, "out", file)))) return;
  log("out/extension.js is missing: building…");
  await runCommand(process.execPath, ["esbuild.mjs"], { cwd: repo });
}
