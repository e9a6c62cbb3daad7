// One VSIX for one target: its prebuilts resolved (fetched and verified when not installed
// here), a staging folder built, and `vsce package --target` run in it. The bundle (out/) must
// already be built for production: main.ts and launcher/vsix.ts do that once for all targets.
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { runCommand } from "../launcher/run-command";
import { FAST_BUILD_CMAKE_OPTIONS, findFastBuild, PORTABLE_BUILD_CMAKE_OPTIONS } from "../../extension/backends/llamacpp/fast-build";
import { packagingCache, resolvePrebuilt, type PrebuiltSource } from "./prebuilts";
import { stageTarget } from "./stage";
import { fetchedOnUsePins, packagesForTarget, platformSpecificPackages } from "./lockfile";
import { hostTarget, type VsixTarget } from "./targets";

export interface PackagedVsix {
  readonly target: VsixTarget;
  readonly path: string;
  readonly bytes: number;
}

export interface PackageOptions {
  /** Folder holding the Core ML addon (`*.node`) built for this target; by default the repository's
   * native/build/Release when the target is this machine's, else none. */
  readonly coremlAddon?: string;
  /** The VSIX is installed on this machine only (`npm start`, the e2e suite): when there is no
   * portable build of ours, it may carry the native one, built for exactly this CPU. */
  readonly forThisMachine?: boolean;
}

/** vsce's flags: dependencies in, and the README's relative links kept as written (they point at
 * files in the repository, which the Marketplace page resolves against `repository`). */
export const VSCE_FLAGS = ["--dependencies", "--no-rewrite-relative-links"] as const;

export async function resolvePrebuilts(repo: string, target: VsixTarget, log: (line: string) => void): Promise<PrebuiltSource[]> {
  return Promise.all(packagesForTarget(repo, target).map((name) => resolvePrebuilt(repo, name, log)));
}

export async function packageTarget(repo: string, target: VsixTarget, out: string, log: (line: string) => void, options: PackageOptions = {}): Promise<PackagedVsix> {
  const vsce = join(repo, "node_modules", "@vscode", "vsce", "vsce");
  if (!existsSync(vsce)) throw new Error(`${vsce} is missing: run npm ci first`);
  if (!existsSync(join(repo, "out", "extension.js"))) throw new Error("out/extension.js is missing: run node esbuild.mjs --production first");
  const prebuilts = await resolvePrebuilts(repo, target, log);
  const isHost = safeHostTarget() === target;
  const localAddon = join(repo, "native", "build", "Release");
  const coremlAddon = options.coremlAddon ?? (isHost && existsSync(localAddon) ? localAddon : undefined);
  const stage = join(packagingCache(repo), "stage", target);
  // Our llama.cpp build, portable (built here by `build-llama --portable`, so for this machine's
  // target); the native one fails on CPUs without this machine's flags, so it goes only into a
  // VSIX that is installed on this machine.
  const localBuilds = join(repo, "node_modules", "node-llama-cpp", "llama", "localBuilds");
  const portable = isHost ? findFastBuild(localBuilds, PORTABLE_BUILD_CMAKE_OPTIONS) : undefined;
  const native = isHost && !portable && options.forThisMachine ? findFastBuild(localBuilds, FAST_BUILD_CMAKE_OPTIONS) : undefined;
  const localBuild = portable ?? native;
  if (isHost && !localBuild) log(`no portable llama.cpp build of ours (node out/cli.js build-llama --portable): ${target}'s VSIX serves node-llama-cpp's prebuilt`);
  stageTarget({ repo, target, stage, prebuilts, platformSpecific: platformSpecificPackages(repo), coremlAddon, localBuild, gpuPins: fetchedOnUsePins(repo, target) });
  log(`Packaging ${out} (${target}: ${prebuilts.map((p) => `${p.name} from ${p.from}`).join(", ")}${coremlAddon ? ", Core ML addon" : ""}${localBuild ? `, our ${portable ? "portable" : "native (this machine only)"} llama.cpp build ${localBuild}` : ""})…`);
  mkdirSync(dirname(out), { recursive: true });
  // package.json's vscode:prepublish refuses to run without this: vsce started anywhere but in a
  // stage (the repository) would pack every platform's binaries from node_modules.
  const env = { ...process.env, STATEFUL_CHAT_VSIX_STAGE: target };
  await runCommand(process.execPath, [vsce, "package", "--target", target, ...VSCE_FLAGS, "--out", out], { cwd: stage, env });
  return { target, path: out, bytes: statSync(out).size };
}

function safeHostTarget(): VsixTarget | undefined {
  try {
    return hostTarget();
  } catch {
    return undefined;
  }
}
