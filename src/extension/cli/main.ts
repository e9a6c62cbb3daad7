// Entry of the `stateful-chat` terminal command.

import { toStatefulChatError } from "../core/errors";
import { ensureDefaultModel, ModelFetchError } from "../models/default-model";
import { CHAT_USAGE, parseChatArgs, UsageError } from "./chat-args";
import { BENCH_USAGE, runBench } from "./bench-command";
import { runChat } from "./chat-command";
import { packageRoot } from "./package-root";
import { isDevelopmentCommand, runDevelopmentCommand } from "./tool-commands";

const USAGE = `Usage: stateful-chat <command>
  chat         chat on stdin/stdout (see: stateful-chat chat --help)
  bench        stateful vs naive re-prefill on one conversation, as ratios
  bench --peers  ours vs llama-server on the same model and machine (scenarios a–e, speculative configurations)
  fetch-model  put the default model into the local cache (idempotent)
  build-llama  build llama.cpp with a persistent threadpool for this machine (cached; idempotent)
  test-flash-attn [--all]  ggml's test-backend-ops on our patched CPU flash attention (built once, cached)
  build-peer-server [--jobs N]  llama-server from the same llama.cpp source (the peer bench's, the remote tests'; cached)
  analyze-requests DIR [--json]  where requests recorded with STATEFUL_CHAT_RECORD_REQUESTS=DIR differ (see: --help)`;

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
      if (rest.includes("--peers")) return runDevelopmentCommand("bench-peers", rest);
      if (rest.includes("--help")) {
        process.stdout.write(`${BENCH_USAGE}\n`);
        return 0;
      }
      return runBench(rest);
    case "fetch-model": {
      const result = await ensureDefaultModel(packageRoot(), (line) => process.stderr.write(`${line}\n`));
      process.stdout.write(`${result.path} (${result.source === "cache" ? "already present, verified" : `fetched from ${result.source}`})\n`);
      return 0;
    }
    default:
      if (isDevelopmentCommand(command)) return runDevelopmentCommand(command, rest);
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
      process.stderr.write(`${error.message}\n${process.argv[2] === "bench" ? BENCH_USAGE : CHAT_USAGE}\n`);
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
