// One npm package pinned as package-lock.json pins it: exact version, sha512 integrity and
// registry tarball. Shared by packaging (src/tools/packaging/ fetches other platforms'
// prebuilts at packaging time) and by the product (GPU binaries fetched on first use), so
// both check a tarball the same way `npm ci` would.

import { createHash } from "node:crypto";

export interface NpmPackagePin {
  /** npm name, e.g. `@node-llama-cpp/linux-x64-cuda`. */
  readonly name: string;
  readonly version: string;
  /** Subresource-integrity string from the lock, `sha512-<base64>`. */
  readonly integrity: string;
  /** The registry tarball: the lock's `resolved`, or the registry's standard path. */
  readonly tarballUrl: string;
}

export const DEFAULT_NPM_REGISTRY = "https://registry.npmjs.org/";

/** The registry's standard tarball address: `<registry>/@scope/name/-/name-<version>.tgz`. */
export function registryTarballUrl(registry: string, name: string, version: string): string {
  const base = registry.endsWith("/") ? registry : `${registry}/`;
  return `${base}${name}/-/${name.split("/").pop()}-${version}.tgz`;
}

export function integrityOf(bytes: Buffer): string {
  return `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
}

/** The hex sha512 an integrity string names; undefined when it is not a single sha512. */
export function sha512HexOf(integrity: string): string | undefined {
  const match = /^sha512-([A-Za-z0-9+/]{86}==)$/.exec(integrity.trim());
  return match ? Buffer.from(match[1]!, "base64").toString("hex") : undefined;
}

export function isNpmPackagePin(value: unknown): value is NpmPackagePin {
  if (typeof value !== "object" || value === null) return false;
  const { name, version, integrity, tarballUrl } = value as Record<string, unknown>;
  return (
    typeof name === "string" &&
    /^(@[a-z0-9._-]+\/)?[a-z0-9._-]+$/.test(name) &&
    typeof version === "string" &&
    /^\d+\.\d+\.\d+[\w.-]*$/.test(version) &&
    typeof integrity === "string" &&
    sha512HexOf(integrity) !== undefined &&
    typeof tarballUrl === "string" &&
    /^https?:\/\//.test(tarballUrl)
  );
}
