// What a VSIX for a target must hold, checked on its entries (vsix-reader.ts): every native
// binary of the target's format and architecture (read from its header, so a mislabelled file
// cannot pass), exactly the target's node-llama-cpp prebuilts at the locked version, the
// extension's entry points, nothing from sources, tests or caches, and a size within budget.
import { isNpmPackagePin } from "../../extension/gpu-binaries/npm-package";
import { GPU_PINS_FILE } from "../../extension/gpu-binaries/provide-gpu-packages";
import { readBinaryKind } from "./binary-header";
import { checkOurBuild } from "./our-build-check";
import { TARGET_SPECS, type VsixTarget } from "./targets";
import type { VsixEntry } from "./vsix-reader";

export interface CheckInput {
  readonly target: VsixTarget;
  readonly entries: readonly VsixEntry[];
  readonly bytes: number;
  /** The lock file's version of node-llama-cpp and of its prebuilts (all the same release). */
  readonly lockedVersion: string;
  /** The release workflow's darwin VSIXs must carry the Core ML addon built on its Mac. */
  readonly expectCoremlAddon?: boolean;
  /** Installed only on the machine that built it: our native llama.cpp build may be in it. */
  readonly forThisMachine?: boolean;
  /** The release job built our portable llama.cpp on the target's platform: the VSIX must carry it. */
  readonly expectOurBuild?: boolean;
}

export const COREML_ADDON = "native/build/Release/stateful_chat_coreml.node";

export interface CheckReport {
  readonly problems: readonly string[];
  /** Native binaries found, `name: format arch…`, for the log. */
  readonly binaries: readonly string[];
  /** Our llama.cpp build's CPU variants, `folder: x64 sse42 …`, when the VSIX carries it. */
  readonly ourBuild: readonly string[];
}

const PREFIX = "extension/";
/** The extension host's bundle, its lazily loaded features, the engine process and the template sandbox's worker. */
export const REQUIRED_FILES = ["out/extension.js", "out/extension-features.js", "out/engine-host.js", "out/template-worker.js", "package.json", "node_modules/node-llama-cpp/package.json"] as const;
/** Sources, tests, tooling bundles, caches, models, maps: none belongs in a VSIX. */
const FORBIDDEN = [
  /^(src|test|test-artifacts|models|\.cache|\.git|\.github|\.vscode|bench-results)\//,
  /^out\/(test|tsc)\//,
  /^out\/(launcher|tools|cli)\.js$/,
  /(^|\/)\.cache\//,
  /\.(ts|map|tsbuildinfo|gguf|vsix|tgz)$/,
  /^native\/(?!build\/Release\/[^/]+\.node$)/,
  /^node_modules\/node-llama-cpp\/llama\/(llama\.cpp\/|gitRelease\.bundle$)/,
];

export function checkVsix(input: CheckInput): CheckReport {
  const spec = TARGET_SPECS[input.target];
  const problems: string[] = [];
  const binaries: string[] = [];
  const files = new Map(input.entries.filter((e) => e.name.startsWith(PREFIX)).map((e) => [e.name.slice(PREFIX.length), e]));
  for (const required of REQUIRED_FILES) if (!files.has(required)) problems.push(`missing ${required}`);
  if (input.expectCoremlAddon && !files.has(COREML_ADDON)) problems.push(`missing ${COREML_ADDON} (the Core ML addon)`);
  const manifest = input.entries.find((e) => e.name === "extension.vsixmanifest")?.text ?? "";
  if (!manifest.includes(`TargetPlatform="${input.target}"`)) problems.push(`extension.vsixmanifest does not name TargetPlatform="${input.target}"`);

  const prebuilts = new Set([...files.keys()].filter((f) => f.startsWith("node_modules/@node-llama-cpp/")).map((f) => f.split("/")[2]));
  const expected = new Set(spec.prebuilts);
  for (const name of prebuilts) if (!expected.has(name)) problems.push(`@node-llama-cpp/${name} is not ${input.target}'s`);
  for (const name of expected) {
    const version = versionOf(files.get(`node_modules/@node-llama-cpp/${name}/package.json`));
    if (version !== input.lockedVersion) problems.push(`@node-llama-cpp/${name}: ${version ? `version ${version}` : "missing"}, the lock says ${input.lockedVersion}`);
  }
  problems.push(...checkGpuPins(spec.fetchedOnUse, files.get(`out/${GPU_PINS_FILE}`), input.lockedVersion));
  const engine = versionOf(files.get("node_modules/node-llama-cpp/package.json"));
  if (engine && engine !== input.lockedVersion) problems.push(`node-llama-cpp ${engine}, the lock says ${input.lockedVersion}`);

  for (const [name, entry] of files) {
    if (FORBIDDEN.some((re) => re.test(name))) problems.push(`${name} should not be shipped`);
    const kind = readBinaryKind(entry.head);
    if (!kind) continue;
    binaries.push(`${name}: ${kind.format} ${kind.arches.join("+")}`);
    if (kind.format !== spec.format || !kind.arches.includes(spec.arch)) {
      problems.push(`${name} is ${kind.format} ${kind.arches.join("+")}, ${input.target} needs ${spec.format} ${spec.arch}`);
    }
  }
  if (binaries.length === 0) problems.push("no native binary at all");
  const ours = checkOurBuild(input.target, files, input.forThisMachine);
  problems.push(...ours.problems);
  if (input.expectOurBuild && !ours.builds.some((b) => b.variants.length > 0)) {
    problems.push(`no portable llama.cpp build of ours (node out/cli.js build-llama --portable on a ${input.target} machine, before packaging)`);
  }
  const megabytes = input.bytes / 1e6;
  if (megabytes > spec.budgetMegabytes) problems.push(`${megabytes.toFixed(1)} MB, over ${input.target}'s budget of ${spec.budgetMegabytes} MB`);
  return { problems, binaries, ourBuild: ours.builds.map((b) => `${b.folder}: ${b.variants.join(" ") || "no CPU variants"}`) };
}

/** The pins of the packages fetched on first use (CUDA): exactly the target's, at the lock's version, each with a sha512. */
function checkGpuPins(expected: readonly string[], entry: VsixEntry | undefined, lockedVersion: string): string[] {
  const where = `out/${GPU_PINS_FILE}`;
  if (!entry?.text) return [`missing ${where}`];
  let pins: unknown;
  try {
    pins = JSON.parse(entry.text);
  } catch {
    return [`${where} is not JSON`];
  }
  if (!Array.isArray(pins) || !pins.every(isNpmPackagePin)) return [`${where} holds something else than package pins`];
  const names = pins.map((p) => p.name);
  const wanted = expected.map((p) => `@node-llama-cpp/${p}`);
  if (names.join() !== wanted.join()) return [`${where} pins ${names.join(", ") || "nothing"}; the target fetches ${wanted.join(", ") || "nothing"}`];
  return pins.filter((p) => p.version !== lockedVersion).map((p) => `${where}: ${p.name} ${p.version}, the lock says ${lockedVersion}`);
}

function versionOf(entry: VsixEntry | undefined): string | undefined {
  if (!entry?.text) return undefined;
  return (JSON.parse(entry.text) as { version?: string }).version;
}
