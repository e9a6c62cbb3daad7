// Where each platform-specific package of a target comes from: this machine's node_modules when npm installed
// it here at the locked version (npm checked its integrity then), otherwise the registry
// tarball at the locked version, verified against the lock's sha512 before it is unpacked.
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCommand } from "../launcher/run-command";
import { integrityOf } from "../../extension/gpu-binaries/npm-package";
import { lockedPackage, type LockedPackage } from "./lockfile";

export interface PrebuiltSource {
  /** npm name, e.g. `@node-llama-cpp/mac-arm64-metal`. */
  readonly name: string;
  readonly version: string;
  /** A package folder (with package.json) to copy into the VSIX's node_modules. */
  readonly dir: string;
  readonly from: "node_modules" | "registry";
}

export function packagingCache(repo: string): string {
  return join(repo, ".cache", "packaging");
}

export async function resolvePrebuilt(repo: string, name: string, log: (line: string) => void): Promise<PrebuiltSource> {
  const locked = lockedPackage(repo, name);
  const installed = join(repo, "node_modules", name);
  if (installedVersion(installed) === locked.version) return { name, version: locked.version, dir: installed, from: "node_modules" };
  const dir = join(packagingCache(repo), "prebuilts", `${name.replace("/", "+")}-${locked.version}`);
  // The marker is written after a verified tarball unpacked completely, so a half-done unpack is redone.
  const marker = join(dir, ".unpacked-integrity");
  if (existsSync(marker) && readFileSync(marker, "utf8") === locked.integrity) return { name, version: locked.version, dir, from: "registry" };
  const tarball = await verifiedTarball(repo, locked, log);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // npm tarballs hold one top folder, `package/`.
  await runCommand("tar", ["-xzf", tarball, "-C", dir, "--strip-components=1"], { cwd: repo });
  if (installedVersion(dir) !== locked.version) throw new Error(`${tarball} does not hold ${locked.name}@${locked.version}`);
  writeFileSync(marker, locked.integrity);
  return { name, version: locked.version, dir, from: "registry" };
}

/** The cached tarball when its bytes match the lock's integrity; otherwise downloaded again and checked. */
async function verifiedTarball(repo: string, locked: LockedPackage, log: (line: string) => void): Promise<string> {
  const tarballs = join(packagingCache(repo), "tarballs");
  mkdirSync(tarballs, { recursive: true });
  const file = join(tarballs, `${locked.name.replace("/", "+")}-${locked.version}.tgz`);
  if (existsSync(file) && integrityOf(readFileSync(file)) === locked.integrity) return file;
  log(`Fetching ${locked.name}@${locked.version} (${locked.tarballUrl})…`);
  const response = await fetch(locked.tarballUrl);
  if (!response.ok) throw new Error(`${locked.tarballUrl}: HTTP ${response.status}`);
  const bytes = Buffer.from(await response.arrayBuffer());
  const actual = integrityOf(bytes);
  if (actual !== locked.integrity) {
    throw new Error(`${locked.name}@${locked.version}: the registry's tarball has integrity ${actual}, package-lock.json says ${locked.integrity}; refused`);
  }
  // Written aside and renamed, so an interrupted download never looks like a cached tarball.
  writeFileSync(`${file}.partial`, bytes);
  renameSync(`${file}.partial`, file);
  log(`  ${(bytes.length / 1e6).toFixed(1)} MB, sha512 matches the lock`);
  return file;
}

function installedVersion(dir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version?: string }).version;
  } catch {
    return undefined;
  }
}
