// Entry of the `stateful-chat` terminal command.

import { toStatefulChatError } from "../core/errors";
import { ensureDefaultModel, ModelFetchError } from "../models/default-model";
import { CHAT_USAGE, parseChatArgs, UsageError } from "./chat-args";
import { BENCH_USAGE, runBench } from "./bench-command";
import { BENCH_PEERS_USAGE, runBenchPeers } from "./bench-peers-command";
import { runChat } from "./chat-command";
import { packageRoot } from "./package-root";
import { ensureFastLlamaBuild, FastBuildUnavailableError } from "../llama-build/fast-llama-build";
import { runFlashAttnTestCommand } from "../llama-build/ggml-op-test-command";

const USAGE = `Usage: stateful-chat <command>
  chat         chat on stdin/stdout (see: stateful-chat chat --help)
  bench        stateful vs naive re-prefill on one conversation, as ratios
  bench --peers  ours vs llama-server on the same model and machine (scenarios a–e, speculative configurations)
  fetch-model  put the default model into the local cache (idempotent)
  build-llama  build llama.cpp with a persistent threadpool for this machine (cached; idempotent)
  test-flash-attn [--all]  ggml's test-backend-ops on our patched CPU flash attention (built once, cached)`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "chat":
      if (rest.includes("--help")) {
        process.stdout.write(`${CHAT_USAGE}\n`);
        return 0;
      }
      return runChat(parseChatArgs(rest));
    case "bench":
      if (rest.includes("--help")) {
        process.stdout.write(`${rest.includes("--peers") ? BENCH_PEERS_USAGE : BENCH_USAGE}\n`);
        return 0;
      }
      return rest.includes("--peers") ? runBenchPeers(rest) : runBench(rest);
    case "fetch-model": {
      const result = await ensureDefaultModel(packageRoot(), (line) => process.stderr.write(`${line}\n`));
      process.stdout.write(`${result.path} (${result.source === "cache" ? "already present, verified" : `fetched from ${result.source}`})\n`);
      return 0;
    }
    case "build-llama": {
      try {
        const result = await ensureFastLlamaBuild(packageRoot(), (line) => process.stderr.write(`${line}\n`));
        process.stdout.write(`${result.folder} (${result.source === "built" ? "built" : result.source === "cache" ? "restored from .cache/llama-build" : "already present"})\n`);
        return 0;
      } catch (error) {
        if (!(error instanceof FastBuildUnavailableError)) throw error;
        // Not fatal: the prebuilt binary still works, only slower with more than one thread.
        process.stderr.write(`llama.cpp threadpool build unavailable, the prebuilt binary will be used: ${error.message}\n`);
        return rest.includes("--required") ? 1 : 0;
      }
    }
    case "test-flash-attn":
      return runFlashAttnTestCommand(packageRoot(), rest);
    default:
      process.stderr.write(`${USAGE}\n`);
      return command === undefined || command === "--help" ? 0 : 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n${process.argv[2] === "bench" ? (process.argv.includes("--peers") ? BENCH_PEERS_USAGE : BENCH_USAGE) : CHAT_USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    if (error instanceof ModelFetchError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    const typed = toStatefulChatError(error);
    process.stderr.write(`error (${typed.code}): ${typed.message}\n`);
    process.exitCode = 1;
  },
);
