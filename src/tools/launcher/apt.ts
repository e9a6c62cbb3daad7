// System packages from Debian: libkrb5-dev (code-server's kerberos module compiles against
// it) and chromium (tests only). Installed only when dpkg says they are missing.

import { probe, runCommand } from "./run-command";

/** Waits for another apt/dpkg run instead of failing on its lock (CI and peers share the box). */
const LOCK_WAIT = ["-o", "DPkg::Lock::Timeout=900"];

export function isInstalled(pkg: string): boolean {
  return probe("dpkg-query", ["-W", "-f=${Status}", pkg])?.includes("install ok installed") ?? false;
}

export async function ensureAptPackages(packages: readonly string[], log: (line: string) => void): Promise<void> {
  const missing = packages.filter((p) => !isInstalled(p));
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`Missing Debian packages: ${missing.join(" ")}. Run: sudo apt-get install -y ${missing.join(" ")}`);
  }
  log(`apt-get install ${missing.join(" ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  try {
    await runCommand("apt-get", [...LOCK_WAIT, "install", "-y", "-q", ...missing], { env });
  } catch {
    // A fresh machine often has no package lists yet.
    await runCommand("apt-get", [...LOCK_WAIT, "update", "-q"], { env });
    await runCommand("apt-get", [...LOCK_WAIT, "install", "-y", "-q", ...missing], { env });
  }
}

/** Debian's chromium for the browser-driven tests (not needed by `npm start`). */
export async function ensureChromium(log: (line: string) => void): Promise<string> {
  await ensureAptPackages(["chromium"], log);
  return "/usr/bin/chromium";
}
