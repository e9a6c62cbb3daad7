// Reproduces the mission's table on a Mac: first-token and per-token latency for each
// compute-unit option over a 512-token conversation (prefill 512 tokens, decode 64).
//   STATEFUL_CHAT_COREML_MODEL=path/to/model-folder npm run bench:coreml
// Prints a Markdown table. NOT run in this repository (no Mac); off macOS it says why.
import { coreMLAvailability, loadCoreMLEngine } from "../../src/extension/backends/coreml/index";

const OPTIONS = ["cpuAndNeuralEngine", "all", "cpuAndGPU", "cpuOnly"] as const;
const PROMPT_TOKENS = 512;
const DECODE_TOKENS = 64;

async function benchOne(modelPath: string, units: (typeof OPTIONS)[number]): Promise<string> {
  const loadStarted = performance.now();
  const engine = await loadCoreMLEngine({ modelPath, computeUnits: units });
  const loadMs = performance.now() - loadStarted;
  try {
    const conversation = engine.tokenizer.encode(
      Array.from({ length: 40 }, (_, i) => `<|im_start|>user\nQuestion ${i}: how do I reverse a list in Python?<|im_end|>\n`).join(""),
      { specials: true },
    );
    const prompt = Array.from({ length: PROMPT_TOKENS }, (_, i) => conversation[i % conversation.length]!);
    if (PROMPT_TOKENS + DECODE_TOKENS > engine.info.capacity) return `| ${units} | capacity ${engine.info.capacity} too small | | |`;
    const state = await engine.createState();
    const started = performance.now();
    let token = await state.evaluate(prompt, { temperature: 0 });
    const firstTokenMs = performance.now() - started;
    const decodeStarted = performance.now();
    for (let i = 0; i < DECODE_TOKENS; i++) token = await state.evaluate([token!], { temperature: 0 });
    const perTokenMs = (performance.now() - decodeStarted) / DECODE_TOKENS;
    return `| ${units} | ${firstTokenMs.toFixed(1)} | ${perTokenMs.toFixed(2)} | ${(1000 / perTokenMs).toFixed(1)} | ${loadMs.toFixed(0)} |`;
  } catch (error) {
    return `| ${units} | failed: ${error instanceof Error ? error.message : String(error)} | | | |`;
  } finally {
    await engine.dispose();
  }
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
  console.log(`Core ML, ${PROMPT_TOKENS}-token prompt, ${DECODE_TOKENS} decoded tokens, greedy\n`);
  console.log("| compute units | first token (ms) | per token (ms) | tokens/s | load (ms) |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const units of OPTIONS) console.log(await benchOne(modelPath, units));
}

void main();
