// The development commands of the `stateful-chat` CLI (bundled as out/tools.js, not shipped in
// the VSIX): our llama.cpp build, ggml's operator test on its patched kernel, the peer bench and
// the analysis of recorded Chat requests. The product CLI (src/extension/cli/) loads this bundle
// only when one is asked for.

import { UsageError } from "../../extension/cli/chat-args";
import { packageRoot } from "../../extension/cli/package-root";
import type { DevelopmentCommand } from "../../extension/cli/tool-commands";
import { ensureFastLlamaBuild, FastBuildUnavailableError } from "../llama-build/fast-llama-build";
import { runFlashAttnTestCommand } from "../llama-build/ggml-op-test-command";
import { join } from "node:path";
import { ensureLlamaServer } from "../peer-bench/llama-server-binary";
import { runAnalyzeRequests } from "./analyze-requests-command";
import { BENCH_PEERS_USAGE, runBenchPeers } from "./bench-peers-command";

/** Serves every name in the product CLI's list of development commands (the one list). */
export async function runTool(command: DevelopmentCommand, args: string[]): Promise<number> {
  switch (command) {
    case "analyze-requests":
      return runAnalyzeRequests(args, (text) => process.stdout.write(text), (text) => process.stderr.write(text));
    case "bench-peers":
      if (args.includes("--help")) {
        process.stdout.write(`${BENCH_PEERS_USAGE}\n`);
        return 0;
      }
      try {
        return await runBenchPeers(args);
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        process.stderr.write(`${error.message}\n${BENCH_PEERS_USAGE}\n`);
        return 2;
      }
    case "build-llama":
      try {
        // --portable: every x86-64 ISA variant of ggml's CPU backend (what a VSIX ships), not -march=native.
        const kind = args.includes("--portable") ? "portable" : "native";
        const result = await ensureFastLlamaBuild(packageRoot(), (line) => process.stderr.write(`${line}\n`), kind);
        process.stdout.write(`${result.folder} (${result.source === "built" ? "built" : result.source === "cache" ? "restored from .cache/llama-build" : "already present"})\n`);
        return 0;
      } catch (error) {
        if (!(error instanceof FastBuildUnavailableError)) throw error;
        // Not fatal: the prebuilt binary still works, only slower with more than one thread.
        process.stderr.write(`our llama.cpp build is unavailable, the prebuilt binary will be used: ${error.message}\n`);
        return args.includes("--required") ? 1 : 0;
      }
    case "build-peer-server": {
      // llama-server from the pinned source (the peer bench's and the remote backend tests'); `--jobs N`.
      const at = args.indexOf("--jobs");
      const jobs = at >= 0 ? Number(args[at + 1]) : 2;
      if (!Number.isInteger(jobs) || jobs < 1) throw new UsageError("--jobs needs a positive integer");
      const server = await ensureLlamaServer(join(packageRoot(), ".cache", "peer"), { log: (line) => process.stderr.write(`${line}\n`), jobs });
      process.stdout.write(`${server.path} (${server.build})\n`);
      return 0;
    }
    case "test-flash-attn":
      return runFlashAttnTestCommand(packageRoot(), args);
  }
}
