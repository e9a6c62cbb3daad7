// The child side of probe.ts: load the model with the given compute units, time a
// prefill and greedy decode steps, print one JSON line. Any crash stays in this process.
import { loadCoreMLEngine } from "./index";
import type { ProbeRequest, ProbeResult } from "./probe";

async function measure(request: ProbeRequest): Promise<ProbeResult> {
  const loadStarted = performance.now();
  const engine = await loadCoreMLEngine({ modelPath: request.modelPath, computeUnits: request.computeUnits });
  const loadMs = performance.now() - loadStarted;
  try {
    if (request.promptTokens + request.decodeTokens > engine.info.capacity) {
      return { ok: false, error: `capacity ${engine.info.capacity} is below ${request.promptTokens + request.decodeTokens} tokens` };
    }
    const text = Array.from({ length: 64 }, (_, i) => `Question ${i}: how do I reverse a list in Python?\n`).join("");
    const ids = engine.tokenizer.encode(text, { specials: false });
    const prompt = Array.from({ length: request.promptTokens }, (_, i) => ids[i % ids.length]!);
    const state = await engine.createState();
    const started = performance.now();
    let token = await state.evaluate(prompt, { temperature: 0 });
    const firstTokenMs = performance.now() - started;
    const decodeStarted = performance.now();
    for (let i = 0; i < request.decodeTokens; i++) token = await state.evaluate([token!], { temperature: 0 });
    const perTokenMs = (performance.now() - decodeStarted) / Math.max(1, request.decodeTokens);
    return { ok: true, loadMs, firstTokenMs, perTokenMs, details: engine.info.details };
  } finally {
    await engine.dispose();
  }
}

measure(JSON.parse(process.argv[2] ?? "{}") as ProbeRequest).then(
  (result) => console.log(JSON.stringify(result)),
  (error: unknown) => console.log(JSON.stringify({ ok: false, error: error instanceof Error ? error.message : String(error) })),
);
