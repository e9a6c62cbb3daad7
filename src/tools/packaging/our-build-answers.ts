// `node --import tsx src/tools/packaging/our-build-answers.ts [--model PATH]`: the release
// jobs' proof that the portable build of ours they just compiled loads on their platform and
// answers, before it is packaged: the CLI's chat (JSON events) on the CPU with
// STATEFUL_CHAT_LLAMA_BUILD=portable, one short greedy turn of the default model. Exits 1 with
// what it saw when the model details do not name our portable build or no reply came.
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { llamaBuildLabel } from "../../extension/backends/llamacpp/fast-build";

const repo = resolve(import.meta.dirname, "..", "..", "..");

interface ChatEvent {
  readonly event?: string;
  readonly details?: string;
  readonly replyTokens?: number;
  readonly reply?: string;
  readonly message?: string;
}

/** What went wrong in a chat's JSON events, or undefined when our portable build answered. */
export function ourBuildAnswerProblem(events: readonly ChatEvent[]): string | undefined {
  const ready = events.find((e) => e.event === "ready");
  const error = events.find((e) => e.event === "error");
  if (error) return `the chat failed: ${error.message ?? "no message"}`;
  if (!ready) return "no ready event: the model did not load";
  const wanted = llamaBuildLabel("portable");
  if (!ready.details?.includes(wanted)) return `the model details do not say "${wanted}": ${ready.details ?? "none"}`;
  const turn = events.find((e) => e.event === "turn");
  if (!turn || (turn.replyTokens ?? 0) === 0) return "no reply";
  return undefined;
}

function parseEvents(stdout: string): ChatEvent[] {
  const events: ChatEvent[] = [];
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      events.push(JSON.parse(line) as ChatEvent);
    } catch {
      // not an event line
    }
  }
  return events;
}

function main(): void {
  const args = process.argv.slice(2);
  const modelAt = args.indexOf("--model");
  const model = modelAt >= 0 ? args[modelAt + 1] : undefined;
  if (modelAt >= 0 && !model) throw new Error("--model needs a path");
  const chatArgs = ["chat", "--json", "--gpu", "off", "--max-tokens", "16", "--temperature", "0", ...(model ? ["--model", model] : [])];
  const result = spawnSync(process.execPath, [resolve(repo, "out", "cli.js"), ...chatArgs], {
    cwd: repo,
    input: "Say hello.\n",
    encoding: "utf8",
    env: { ...process.env, STATEFUL_CHAT_LLAMA_BUILD: "portable" },
    timeout: 10 * 60_000,
  });
  const events = parseEvents(result.stdout ?? "");
  const problem = result.status !== 0 ? `the CLI exited with ${result.status ?? result.signal}` : ourBuildAnswerProblem(events);
  const ready = events.find((e) => e.event === "ready");
  if (problem) {
    console.error(`our portable build did not answer: ${problem}\n--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}`);
    process.exitCode = 1;
    return;
  }
  const turn = events.find((e) => e.event === "turn");
  console.log(`ok: ${ready?.details}\nreply (${turn?.replyTokens} tokens): ${JSON.stringify(turn?.reply)}`);
}

if (import.meta.filename === process.argv[1]) main();
