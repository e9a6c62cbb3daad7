// The Agent-mode requests VS Code 1.139.1's Copilot Chat (0.67) sent to our provider, as
// recorded (test/bench/results/agent-requests-qwen1.5b/), with their messages and tools
// recovered from the rendered text: the log keeps each message's SHA-256 prefix, not its
// content, and Qwen2.5's template renders every message and tool whole, so the text gives
// them back. Each recovered message is checked against its recorded hash and length, the tools
// against theirs, so a recovery that is not exact fails here.

import { createHash } from "node:crypto";
import { join } from "node:path";
import type { RequestMessage, RequestRole, ToolSpec } from "../../src/extension/core/request-pool/request-shape";
import { readRequestLog, type LoggedRequest } from "../../src/tools/request-analysis/request-log";

export const RECORDING_DIR = join(__dirname, "..", "bench", "results", "agent-requests-qwen1.5b");
export const RECORDING_FILES = ["requests.jsonl", "requests-second-window.jsonl"] as const;

export interface RecoveredRequest {
  readonly record: LoggedRequest;
  readonly messages: readonly RequestMessage[];
  readonly tools: readonly ToolSpec[];
}

const TOOLS_START = "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>";
const TOOLS_END = "\n</tools>\n\nFor each function call,";
const TURN_END = "<|im_end|>\n";
const GENERATION = "<|im_start|>assistant\n";

/** Every recorded request, in recording order (the first window's, then the second's). */
export function recordedAgentRequests(): RecoveredRequest[] {
  return RECORDING_FILES.flatMap((file) => readRequestLog(join(RECORDING_DIR, file)).requests.map(recover));
}

function recover(record: LoggedRequest): RecoveredRequest {
  if (!record.text.endsWith(GENERATION)) throw new Error(`${record.id}: no generation prompt at the end`);
  const turns = record.text
    .slice(0, -GENERATION.length)
    .split("<|im_start|>")
    .slice(1);
  let tools: ToolSpec[] = [];
  const messages = turns.map((turn, i): RequestMessage => {
    if (!turn.endsWith(TURN_END)) throw new Error(`${record.id}: turn ${i} does not end with <|im_end|>`);
    const newline = turn.indexOf("\n");
    const role = turn.slice(0, newline) as RequestRole;
    let content = turn.slice(newline + 1, -TURN_END.length);
    if (i === 0 && content.includes(TOOLS_START)) {
      const at = content.indexOf(TOOLS_START);
      const list = content.slice(at + TOOLS_START.length, content.indexOf(TOOLS_END, at));
      tools = list
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => {
          const { function: f } = JSON.parse(line) as { function: ToolSpec };
          return { name: f.name, description: f.description, parameters: f.parameters };
        });
      content = content.slice(0, at);
    }
    return { role, content };
  });
  messages.forEach((m, i) => {
    const recorded = record.messages[i];
    if (!recorded || recorded.role !== m.role || recorded.chars !== m.content.length || recorded.sha !== sha16(m.content)) {
      throw new Error(`${record.id}: message ${i} (${m.role}) not recovered exactly`);
    }
  });
  if (messages.length !== record.messages.length) throw new Error(`${record.id}: ${messages.length} messages recovered of ${record.messages.length}`);
  if (sha16(JSON.stringify(tools)) !== record.toolsSha) throw new Error(`${record.id}: the tools not recovered exactly`);
  return { record, messages, tools };
}

function sha16(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}
