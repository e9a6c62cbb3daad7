// Reproduces the mission's table on a Mac: load time, first-token and per-token latency
// for each compute-unit option, prefill 512 tokens then decode 64, greedy.
//   STATEFUL_CHAT_COREML_MODEL=path/to/model-folder npm run bench:coreml
// Each option runs in its own child process (backends/coreml/probe.ts): a Neural Engine
// compile that kills its process shows up as a row, not as the end of the bench.
// Prints a Markdown table; STATEFUL_CHAT_BENCH_JSON=file also writes the rows as JSON.
// NOT run in this repository (no Mac); off macOS it says why.
import { writeFileSync } from "node:fs";
import { COMPUTE_UNIT_OPTIONS } from "../../src/extension/backends/coreml/compute-units";
import { coreMLAvailability } from "../../src/extension/backends/coreml/index";
import { runProbe, type ProbeResult } from "../../src/extension/backends/coreml/probe";

const PROMPT_TOKENS = 512;
const DECODE_TOKENS = 64;

function row(units: string, result: ProbeResult): string {
  if (!result.ok) return `| ${units} | failed: ${result.error.replace(/\|/g, "/")} | | | | |`;
  const perSecond = 1000 / result.perTokenMs;
  return `| ${units} | ${result.firstTokenMs.toFixed(1)} | ${result.perTokenMs.toFixed(2)} | ${perSecond.toFixed(1)} | ${result.loadMs.toFixed(0)} | ${result.details} |`;
}

async function main(): Promise<void> {
  const availability = coreMLAvailability();
  if (!availability.available) {
    console.log(`coreml bench skipped: ${availability.reason}`);
    return;
  }
  const modelPath = process.env.STATEFUL_CHAT_COREML_MODEL;
  if (!modelPath) {
    console.error("Set STATEFUL_CHAT_COREML_MODEL to a converted Core ML model folder");
    process.exitCode = 2;
    return;
  }
  console.log(`Core ML, ${modelPath}: ${PROMPT_TOKENS}-token prompt, ${DECODE_TOKENS} decoded tokens, greedy\n`);
  console.log("| compute units | first token (ms) | per token (ms) | tokens/s | load (ms) | details |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  const rows: Array<{ units: string; result: ProbeResult }> = [];
  for (const units of [...COMPUTE_UNIT_OPTIONS, "auto" as const]) {
    const result = await runProbe({ modelPath, computeUnits: units, promptTokens: PROMPT_TOKENS, decodeTokens: DECODE_TOKENS });
    rows.push({ units, result });
    console.log(row(units, result));
  }
  if (process.env.STATEFUL_CHAT_BENCH_JSON) {
    writeFileSync(process.env.STATEFUL_CHAT_BENCH_JSON, JSON.stringify({ modelPath, promptTokens: PROMPT_TOKENS, decodeTokens: DECODE_TOKENS, rows }, null, 1));
  }
}

void main();
