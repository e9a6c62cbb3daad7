// Runs the built CLI (out/cli.js) the way a user would: messages on stdin, JSON events out.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "./default-model";

/**
 * With STATEFUL_CHAT_TEST_THREADS set (test-threads.ts), a chat or bench without --threads gets
 * that many, instead of the machine's calibrated count.
 */
function withTestThreads(args: string[]): string[] {
  const threads = process.env.STATEFUL_CHAT_TEST_THREADS;
  if (!threads || !["chat", "bench"].includes(args[0]) || args.includes("--threads")) return args;
  return [...args, "--threads", threads];
}

export interface CliRun {
  readonly code: number | null;
  readonly events: Array<Record<string, unknown> & { event: string }>;
  readonly stdout: string;
  readonly stderr: string;
}

export function runCli(args: string[], lines: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, "out", "cli.js"), ...withTestThreads(args)], {
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => {
      const events = stdout
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown> & { event: string });
      resolve({ code, events, stdout, stderr });
    });
    child.stdin.end(lines.map((l) => `${l}\n`).join(""));
  });
}
