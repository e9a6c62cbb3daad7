// Starting and stopping code-server on 127.0.0.1. It runs in its own process group so that
// stopping it also ends its extension host and file watchers; a sync kill on process exit
// is the safety net when the caller crashes.

import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "./free-port";
import { runCommand } from "./run-command";
import type { Scratch } from "./scratch";
import type { Toolchain } from "./toolchain";

export interface StartOptions {
  readonly toolchain: Toolchain;
  readonly scratch: Scratch;
  /** Folder to open; also the default `?folder=`. */
  readonly folder: string;
  /** 0 or absent: a free port. */
  readonly port?: number;
  /** Extra flags, e.g. `--vscode-option enable-smoke-test-driver` or `--extensions-dir` tweaks. */
  readonly extraArgs?: readonly string[];
  /** Extra environment for the server and its extension host. */
  readonly env?: Readonly<Record<string, string>>;
  /** Give up waiting for /healthz after this long. Defaults to 120 s (2 shared cores). */
  readonly readyTimeoutMs?: number;
  /**
   * A password for the workbench (code-server's `--auth password`, passed in its environment,
   * never on the command line where `ps` shows it). Absent: `--auth none`, which only the
   * tests use: on a shared host any local user reaching 127.0.0.1 would get a shell.
   */
  readonly password?: string;
  /**
   * Turn Workspace Trust off (`--disable-workspace-trust`). Defaults to false: a folder opened
   * with `npm start` is in Restricted Mode until the user trusts it, so its `.vscode` tasks and
   * settings do not take effect on their own. Only the test harnesses set it, for the
   * throwaway workspaces they create.
   */
  readonly disableWorkspaceTrust?: boolean;
}

export interface RunningCodeServer {
  readonly port: number;
  readonly origin: string;
  /** code-server's stdout+stderr. */
  readonly logFile: string;
  /** The server's process id: its extension hosts and their engine processes are its descendants. */
  readonly pid: number;
  /** The workbench URL with `?folder=`. */
  url(folder?: string): string;
  /** Settles when the server process exits (on its own or after stop()). */
  readonly exited: Promise<void>;
  /** Kills the whole process group; idempotent. */
  stop(): Promise<void>;
}

/** Flags shared by serving and `--install-extension` so both see the same profile. */
function profileArgs(scratch: Scratch): string[] {
  return ["--user-data-dir", scratch.userDataDir, "--extensions-dir", scratch.extensionsDir];
}

function serverEnv(scratch: Scratch, extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...scratch.env, ...extra };
}

export async function installExtension(toolchain: Toolchain, scratch: Scratch, vsix: string): Promise<void> {
  await runCommand(toolchain.node, [toolchain.codeServer, ...profileArgs(scratch), "--install-extension", vsix, "--force"], {
    env: serverEnv(scratch),
  });
}

async function waitForHealthz(origin: string, exited: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited()) throw new Error("code-server exited before it became ready");
    try {
      const response = await fetch(`${origin}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer ${origin}/healthz within ${timeoutMs / 1000} s`);
}

/** code-server's command line (after the node binary) for `options` on `port`. */
export function codeServerArgs(options: StartOptions, port: number): string[] {
  return [
    options.toolchain.codeServer,
    "--bind-addr",
    `127.0.0.1:${port}`,
    "--auth",
    options.password === undefined ? "none" : "password",
    ...profileArgs(options.scratch),
    "--disable-telemetry",
    "--disable-update-check",
    ...(options.disableWorkspaceTrust ? ["--disable-workspace-trust"] : []),
    "--disable-getting-started-override",
    "--ignore-last-opened",
    ...(options.extraArgs ?? []),
    options.folder,
  ];
}

export async function startCodeServer(options: StartOptions): Promise<RunningCodeServer> {
  const port = options.port || (await freePort());
  const origin = `http://127.0.0.1:${port}`;
  const logFile = join(options.scratch.root, "code-server.log");
  const out = openSync(logFile, "w");
  const args = codeServerArgs(options, port);
  // detached: a new process group whose id is the child's pid.
  const child = spawn(options.toolchain.node, args, {
    env: serverEnv(options.scratch, { ...options.env, ...(options.password === undefined ? {} : { PASSWORD: options.password }) }),
    stdio: ["ignore", out, out],
    detached: true,
  });
  closeSync(out);
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => child.once("exit", () => ((exited = true), resolve())));
  const killGroup = (signal: NodeJS.Signals): void => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const onExit = (): void => killGroup("SIGKILL");
  process.once("exit", onExit);

  const stop = async (): Promise<void> => {
    process.removeListener("exit", onExit);
    if (exited) return killGroup("SIGKILL"); // the leader is gone; reap stragglers
    killGroup("SIGTERM");
    const timer = setTimeout(() => killGroup("SIGKILL"), 5000);
    await exitPromise;
    clearTimeout(timer);
    killGroup("SIGKILL");
  };

  try {
    await waitForHealthz(origin, () => exited, options.readyTimeoutMs ?? 120_000);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message} (log: ${logFile})`, { cause: error });
  }
  return {
    port,
    origin,
    logFile,
    pid: child.pid ?? -1,
    exited: exitPromise,
    // Slashes left readable: this URL is printed for people to open.
    url: (folder = options.folder) => `${origin}/?folder=${encodeURIComponent(folder).replace(/%2F/g, "/")}`,
    stop,
  };
}
