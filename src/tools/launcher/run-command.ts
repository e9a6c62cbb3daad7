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
    /** The end of what the command printed, when it was captured. */
    readonly outputTail = "",
  ) {
    super(`${command} exited with ${exitCode ?? "a signal"}${outputTail ? `:\n${outputTail}` : ""}`);
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

/** Runs to completion with output captured (long builds stay quiet); rejects with its tail. */
export function runCapturing(file: string, args: readonly string[], options: RunOptions = {}): Promise<string> {
  const line = [file, ...args].join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let tail = "";
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-6000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(tail) : reject(new CommandError(line, code, tail))));
  });
}

/** Whether a command is on PATH. */
export function commandExists(name: string): boolean {
  return probe("sh", ["-c", `command -v ${name}`]) !== undefined;
}
