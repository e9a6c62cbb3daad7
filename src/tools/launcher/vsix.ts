// Packages the extension as a VSIX, the way `npm run package` does but WITH dependencies:
// node-llama-cpp is external to the esbuild bundle (ESM + native binaries), so the VSIX must
// carry it in node_modules; .vscodeignore trims that to its runtime closure and the
// linux-x64 CPU binary (the VSIX is therefore platform-specific).

import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { runCommand } from "./run-command";

/** vsce's target for this machine (linux-x64, darwin-arm64, …): the VSIX carries this platform's
 * node-llama-cpp binary only, so it says so and VS Code refuses it elsewhere. */
export function vsceTarget(): string {
  return `${process.platform}-${process.arch}`;
}

export interface VsixResult {
  readonly path: string;
  readonly bytes: number;
}

/** Production bundle + `vsce package` into `out`. Prompts are impossible (stdin is inherited
 * but every question vsce could ask is pre-answered by a flag). */
export async function packageVsix(repo: string, out: string, log: (line: string) => void): Promise<VsixResult> {
  mkdirSync(dirname(out), { recursive: true });
  log("Bundling (production)…");
  await runCommand(process.execPath, ["esbuild.mjs", "--production"], { cwd: repo });
  log(`Packaging ${out}…`);
  const vsce = join(repo, "node_modules", "@vscode", "vsce", "vsce");
  if (!existsSync(vsce)) throw new Error(`${vsce} is missing: run npm ci first`);
  // The VSIX is installed locally, never published, so it has no repository URL to rewrite
  // the README's relative links (benchmark tables and plots) against; vsce would refuse them.
  const flags = ["--dependencies", "--allow-missing-repository", "--skip-license", "--no-rewrite-relative-links"];
  await runCommand(process.execPath, [vsce, "package", "--target", vsceTarget(), ...flags, "--out", out], { cwd: repo });
  return { path: out, bytes: statSync(out).size };
}

/** `node esbuild.mjs` when out/extension.js is missing (a fresh clone that skipped `npm run build`). */
export async function ensureBuilt(repo: string, log: (line: string) => void): Promise<void> {
  if (["extension.js", "extension-features.js", "cli.js"].every((file) => existsSync(join(repo, "out", file)))) return;
  log("out/extension.js is missing: building…");
  await runCommand(process.execPath, ["esbuild.mjs"], { cwd: repo });
}
