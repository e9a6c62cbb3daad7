// A real llama-server for the remote backend's tests: the peer bench's build of the pinned
// llama.cpp source (peer-bench/llama-server-binary.ts, built once, cached in .cache/peer/),
// started on a fixed loopback port in its own process group, so a test can kill it mid-reply
// and start it again at the same address (a server restart, as a client sees one).
// Test code only: the product (backends/remote/) never imports peer-bench/.

import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureLlamaServer } from "../../src/tools/peer-bench/llama-server-binary";
import { defaultModelFile, repoRoot } from "../support/default-model";
import { freePort } from "../../src/tools/launcher/free-port";

export interface TestServerOptions {
  readonly modelPath: string;
  readonly slots: number;
  /** Tokens per slot. */
  readonly contextPerSlot: number;
  readonly threads?: number;
  readonly port?: number;
}

export async function llamaServerBinary(): Promise<string> {
  return (await ensureLlamaServer(join(repoRoot, ".cache", "peer"))).path;
}

export class TestLlamaServer {
  private child: ChildProcess | undefined;
  private log = "";

  private constructor(
    private readonly binary: string,
    private readonly options: TestServerOptions & { readonly port: number },
  ) {}

  static async start(options: TestServerOptions): Promise<TestLlamaServer> {
    const server = new TestLlamaServer(await llamaServerBinary(), { ...options, port: options.port ?? (await freePort()) });
    await server.launch();
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.options.port}`;
  }

  get pid(): number | undefined {
    return this.child?.exitCode === null ? this.child.pid : undefined;
  }

  get logTail(): string {
    return this.log.slice(-3000);
  }

  /** Start again at the same address (after kill()). */
  async launch(): Promise<void> {
    const { modelPath, slots, contextPerSlot, threads = 2, port } = this.options;
    const child = spawn(
      this.binary,
      ["--model", modelPath, "--host", "127.0.0.1", "--port", String(port), "--ctx-size", String(contextPerSlot * slots), "--parallel", String(slots),
        "--threads", String(threads), "--threads-batch", String(threads), "--flash-attn", "auto", "--no-webui"],
      { detached: true, stdio: ["ignore", "ignore", "pipe"] },
    );
    this.child = child;
    child.stderr?.on("data", (chunk: Buffer) => (this.log = (this.log + chunk.toString()).slice(-20_000)));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`llama-server exited during start:\n${this.logTail}`);
      const ok = await fetch(`${this.url}/health`).then((r) => r.ok, () => false);
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`llama-server did not start:\n${this.logTail}`);
  }

  /** Kill the whole process group (SIGKILL: the server gets no chance to close streams cleanly). */
  async kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    try {
      process.kill(-child.pid, signal);
    } catch {
      return;
    }
    await exited;
  }

  stop(): Promise<void> {
    return this.kill("SIGKILL");
  }
}

/**
 * The default model with two vocabulary entries swapped ("def" and "const"): a server that
 * loads it is a real llama-server whose tokenizer maps the same text to other ids. Written
 * once by the `gguf` package (the venv test/support/fixture-models.ts makes), cached in
 * .cache/fixtures/.
 */
export function swappedVocabularyModel(): string {
  const target = join(repoRoot, ".cache", "fixtures", "swapped-vocabulary-def-const.gguf");
  if (existsSync(target)) return target;
  const venv = join(repoRoot, ".cache", "gguf-venv");
  const python = join(venv, "bin", "python");
  if (!existsSync(join(venv, "bin", "gguf-new-metadata"))) {
    execFileSync("python3", ["-m", "venv", venv], { stdio: "inherit" });
    execFileSync(join(venv, "bin", "pip"), ["install", "--quiet", "gguf==0.19.0"], { stdio: "inherit" });
  }
  mkdirSync(join(repoRoot, ".cache", "fixtures"), { recursive: true });
  const script = join(repoRoot, ".cache", "fixtures", "swap-vocabulary.py");
  writeFileSync(
    script,
    [
      "import sys, gguf",
      "from gguf.scripts.gguf_new_metadata import copy_with_new_metadata, MetadataDetails, get_field_data",
      "reader = gguf.GGUFReader(sys.argv[1], 'r')",
      "tokens = list(get_field_data(reader, gguf.Keys.Tokenizer.LIST))",
      "a, b = tokens.index('def'), tokens.index('const')",
      "tokens[a], tokens[b] = tokens[b], tokens[a]",
      "writer = gguf.GGUFWriter(sys.argv[2], arch=get_field_data(reader, gguf.Keys.General.ARCHITECTURE), endianess=reader.endianess)",
      "alignment = get_field_data(reader, gguf.Keys.General.ALIGNMENT)",
      "if alignment is not None: writer.data_alignment = alignment",
      "copy_with_new_metadata(reader, writer, {gguf.Keys.Tokenizer.LIST: MetadataDetails(gguf.GGUFValueType.ARRAY, tokens, sub_type=gguf.GGUFValueType.STRING)}, [])",
      "",
    ].join("\n"),
  );
  const partial = `${target}.partial`;
  execFileSync(python, [script, defaultModelFile(), partial], { stdio: ["ignore", "ignore", "pipe"] });
  renameSync(partial, target);
  return target;
}
