// Builds the folder vsce packages for one target: the repository's shippable files, the
// production dependency closure from node_modules without any platform-specific package
// (node-llama-cpp's prebuilts, @reflink/*'s), then exactly the target's (prebuilts.ts). vsce then sees no other platform's binary at
// all, and .vscodeignore trims the rest as it always did.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { GPU_PINS_FILE } from "../../extension/gpu-binaries/provide-gpu-packages";
import type { NpmPackagePin } from "../../extension/gpu-binaries/npm-package";
import { linkTree } from "./link-tree";
import type { PrebuiltSource } from "./prebuilts";
import type { VsixTarget } from "./targets";

export interface StageOptions {
  readonly repo: string;
  readonly target: VsixTarget;
  readonly stage: string;
  /** The target's platform-specific packages, resolved. */
  readonly prebuilts: readonly PrebuiltSource[];
  /** Every platform-specific package name of the lock: left out of the closure copied from node_modules. */
  readonly platformSpecific: readonly string[];
  /** Folder of the Core ML addon's `.node` files built for this target, or undefined to ship none. */
  readonly coremlAddon: string | undefined;
  /** The folder of node-llama-cpp's llama/localBuilds to ship (our portable llama.cpp build), or undefined
   * for none; every other folder there (the native build of the packaging machine) stays out. */
  readonly localBuild: string | undefined;
  /** The lock's pins of the GPU packages this target fetches on first use, written to out/gpu-binaries.json. */
  readonly gpuPins: readonly NpmPackagePin[];
}

/** Top-level entries never shipped (.vscodeignore drops them too): not linked, so staging stays quick. */
const UNSHIPPED_TOP_LEVEL = new Set([
  ".git", ".cache", ".ci", ".github", ".vscode", "node_modules", "native", "src", "test", "test-artifacts",
  "models", "bench-results", "bin", "out-tsc", "dist",
]);

/** vsce then lists dependencies with `npm list` in the stage, which reads its node_modules as they are. */
export function stageTarget(options: StageOptions): void {
  const { repo, stage } = options;
  rmSync(stage, { recursive: true, force: true });
  linkTree(repo, stage, (rel) => UNSHIPPED_TOP_LEVEL.has(rel) || rel.endsWith(".vsix"));
  if (options.coremlAddon) linkTree(options.coremlAddon, join(stage, "native", "build", "Release"), (rel) => !rel.endsWith(".node"));
  const skipped = new Set(options.platformSpecific);
  for (const dir of productionDependencies(repo)) {
    const rel = relative(join(repo, "node_modules"), dir).split(sep).join("/");
    if (skipped.has(rel)) continue;
    linkTree(dir, join(stage, "node_modules", rel), (inner) => inner === "node_modules" || unshippedInside(rel, inner, options.localBuild));
  }
  for (const prebuilt of options.prebuilts) {
    linkTree(prebuilt.dir, join(stage, "node_modules", ...prebuilt.name.split("/")), (rel) => rel.startsWith(".unpacked"));
  }
  // Removed first: a hard link to a file of the repository would be written through.
  const pins = join(stage, "out", GPU_PINS_FILE);
  rmSync(pins, { force: true });
  writeFileSync(pins, `${JSON.stringify(options.gpuPins, null, 2)}\n`);
}

/** Big folders of node-llama-cpp that .vscodeignore drops anyway (the llama.cpp sources) or that
 * belong to the packaging machine (its native llama.cpp build): every local build but `localBuild`. */
export function unshippedInside(dependency: string, inner: string, localBuild: string | undefined): boolean {
  if (dependency !== "node-llama-cpp") return false;
  if (inner === "llama/gitRelease.bundle" || inner === "llama/llama.cpp") return true;
  if (inner === "llama/localBuilds") return localBuild === undefined;
  return inner.startsWith("llama/localBuilds/") && inner.split("/")[2] !== localBuild;
}

/** The folders of the production dependency closure, as vsce finds them (`npm list --production`). */
function productionDependencies(repo: string): string[] {
  const result = spawnSync("npm", ["list", "--production", "--parseable", "--depth=99999", "--loglevel=error"], {
    cwd: repo,
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
  const dirs = result.stdout.split(/\r?\n/).filter((line) => line.startsWith(join(repo, "node_modules") + sep));
  if (dirs.length === 0) throw new Error(`npm list found no production dependencies in ${repo}: ${result.stderr}`);
  return dirs.filter((dir) => existsSync(dir) && readdirSync(dir).length > 0);
}
