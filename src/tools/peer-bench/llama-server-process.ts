// One llama-server process for a scenario: started on a free loopback port in its own
// process group, ready when /health answers 200, stopped by killing the group.

import { spawn, type ChildProcess } from "node:child_process";
import { dirname } from "node:path";
import { PeerUnavailableError } from "./llama-server-binary";
import { freePort } from "../launcher/free-port";

export interface LlamaServerOptions {
  readonly binary: string;
  readonly modelPath: string;
  /** Tokens per slot: the server gets contextSize × slots, so each chat has as much room as ours. */
  readonly contextSize: number;
  readonly threads: number;
  readonly slots: number;
  /** Appended to the command line (speculative decoding: `--spec-type`, `-md`, …). */
  readonly extraArgs?: readonly string[];
}

export class LlamaServerProcess {
  private exited = false;

  private constructor(
    private readonly child: ChildProcess,
    readonly baseUrl: string,
    private readonly logTail: () => string,
  ) {
    child.once("exit", () => (this.exited = true));
  }

  static async start(options: LlamaServerOptions): Promise<LlamaServerProcess> {
    const port = await freePort();
    const args = [
      "--model", options.modelPath,
      "--host", "127.0.0.1",
      "--port", String(port),
      "--ctx-size", String(options.contextSize * options.slots),
      "--parallel", String(options.slots),
      "--threads", String(options.threads),
      "--threads-batch", String(options.threads),
      // The attention our engine uses (see llama-state.ts), and llama-server's default.
      "--flash-attn", "auto",
      "--jinja",
      "--no-webui",
      ...(options.extraArgs ?? []),
    ];
    const child = spawn(options.binary, args, { detached: true, stdio: ["ignore", "ignore", "pipe"], env: withOwnLibraries(options.binary) });
    let tail = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-3000);
    });
    const server = new LlamaServerProcess(child, `http://127.0.0.1:${port}`, () => tail);
    try {
      await server.waitUntilReady();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get log(): string {
    return this.logTail();
  }

  private async waitUntilReady(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.exited) throw new PeerUnavailableError(`llama-server exited during start:\n${this.logTail()}`);
      try {
        const response = await fetch(`${this.baseUrl}/health`);
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new PeerUnavailableError(`llama-server did not become ready in ${timeoutMs / 1000} s:\n${this.logTail()}`);
  }

  async stop(): Promise<void> {
    if (this.exited || this.child.pid === undefined) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    try {
      process.kill(-this.child.pid, "SIGTERM");
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-this.child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }, 5000);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * The server's environment with its own folder first on the library path. Its libraries sit
 * beside it (libllama.so, libggml-base.so, …); its RUNPATH names the folder it was built in,
 * which is gone when the cache was copied from another clone. The folder must never go on our
 * own process's library path instead: node-llama-cpp's libraries have the same names and
 * would load the server's in their place (our engine computing with the peer's kernels).
 */
function withOwnLibraries(binary: string): NodeJS.ProcessEnv {
  const variable = process.platform === "darwin" ? "DYLD_LIBRARY_PATH" : "LD_LIBRARY_PATH";
  const inherited = process.env[variable];
  return { ...process.env, [variable]: inherited ? `${dirname(binary)}:${inherited}` : dirname(binary) };
}
