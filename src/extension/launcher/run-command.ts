// Child processes for provisioning and packaging: output is streamed to the user (these
// steps take minutes, silence looks like a hang), failures reject with the command line.

import { spawn, spawnSync } from "node:child_process";

export interface RunOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export class CommandError extends Error {
  constructor(
    readonly command: string,
    readonly exitCode: number | null,
  ) {
    super(`${command} exited with ${exitCode ?? "a signal"}`);
    this.name = "CommandError";
  }
}

/** Runs to completion with inherited stdio; rejects on a non-zero exit. */
export function runCommand(file: string, args: readonly string[], options: RunOptions = {}): Promise<void> {
  const line = [file, ...args].join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: "inherit" });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new CommandError(line, code))));
  });
}

/** Stdout of a quick probe (such as `dpkg-query`), or undefined when it fails. */
export function probe(file: string, args: readonly string[]): string | undefined {
  const result = spawnSync(file, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  return result.status === 0 ? result.stdout : undefined;
}
