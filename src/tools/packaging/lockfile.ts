// Exact versions and integrities from package-lock.json: a package fetched for another platform
// must be byte-for-byte what `npm ci` would install there. Also which locked packages are
// platform-specific (an `os`/`cpu` field: native prebuilts such as @reflink/reflink-darwin-arm64),
// so a VSIX carries its target's and no other's.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_NPM_REGISTRY, registryTarballUrl, type NpmPackagePin } from "../../extension/gpu-binaries/npm-package";
import { TARGET_SPECS, type VsixTarget } from "./targets";

/** The product's pin (gpu-binaries/npm-package.ts): the same fields the VSIX carries for its GPU packages. */
export type LockedPackage = NpmPackagePin;

interface LockEntry {
  readonly version?: string;
  readonly integrity?: string;
  readonly resolved?: string;
  readonly dev?: boolean;
  readonly os?: readonly string[];
  readonly cpu?: readonly string[];
  readonly libc?: readonly string[];
}

const NODE_LLAMA_CPP_SCOPE = "@node-llama-cpp/";

function lockEntries(repo: string): Record<string, LockEntry> {
  const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8")) as { packages?: Record<string, LockEntry> };
  return lock.packages ?? {};
}

/** A top-level (hoisted) package of the lock; throws when it or its sha512 integrity is missing. */
export function lockedPackage(repo: string, name: string, registry = registryUrl()): LockedPackage {
  const entry = lockEntries(repo)[`node_modules/${name}`];
  if (!entry?.version || !entry.integrity?.startsWith("sha512-")) {
    throw new Error(`package-lock.json has no version and sha512 integrity for ${name}`);
  }
  const tarballUrl = entry.resolved ?? registryTarballUrl(registry, name, entry.version);
  return { name, version: entry.version, integrity: entry.integrity, tarballUrl };
}

/** Every production package of the lock that names an `os` or `cpu`: none is staged from
 * node_modules as is; the target's are resolved by version (prebuilts.ts). */
export function platformSpecificPackages(repo: string): string[] {
  return Object.entries(lockEntries(repo))
    .filter(([path, entry]) => path.startsWith("node_modules/") && !entry.dev && (entry.os || entry.cpu))
    .map(([path]) => path.slice("node_modules/".length));
}

/** The platform-specific packages a target's VSIX carries: node-llama-cpp's from the target table
 * (its packages' own `cpu` fields list x64 for cross-building, so they cannot decide), the others
 * by their `os`/`cpu` (glibc for Linux: Alpine is a VS Code target of its own). */
export function packagesForTarget(repo: string, target: VsixTarget): string[] {
  const [platform, arch] = target.split("-");
  const entries = lockEntries(repo);
  const others = platformSpecificPackages(repo).filter((name) => {
    if (name.startsWith(NODE_LLAMA_CPP_SCOPE)) return false;
    const entry = entries[`node_modules/${name}`];
    return matches(entry.os, platform) && matches(entry.cpu, arch) && (!entry.libc || entry.libc.includes("glibc"));
  });
  return [...TARGET_SPECS[target].prebuilts.map((p) => `${NODE_LLAMA_CPP_SCOPE}${p}`), ...others];
}

/** The pins of the GPU packages a target's VSIX leaves out and fetches on first use (gpu-binaries.json). */
export function fetchedOnUsePins(repo: string, target: VsixTarget): LockedPackage[] {
  return TARGET_SPECS[target].fetchedOnUse.map((p) => lockedPackage(repo, `${NODE_LLAMA_CPP_SCOPE}${p}`));
}

/** npm's os/cpu rule: absent allows all; `!x` excludes x; otherwise the value must be listed. */
function matches(allowed: readonly string[] | undefined, value: string): boolean {
  if (!allowed) return true;
  if (allowed.includes(`!${value}`)) return false;
  const positive = allowed.filter((a) => !a.startsWith("!"));
  return positive.length === 0 || positive.includes(value);
}

/** npm's configured registry when run through npm (npm_config_registry), else the public one. */
function registryUrl(): string {
  return process.env.npm_config_registry || DEFAULT_NPM_REGISTRY;
}
