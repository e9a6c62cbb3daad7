// `node --import tsx test/bench/fast-apply-bench.ts [--repeats N] [--threads N] [--lines N] [--model PATH] [--json FILE]`
// Fast apply of a change to a 300-line file (a fragment that leaves lines out, so only the
// model can merge it: the whole file is rewritten), on the default model, with and without
// prompt lookup (the CLI's --speculative lookup / off: two engines from the same GGUF), runs
// alternated and repeated. Reports both times, their ratio with the spread over the repeats,
// tokens per target step, and whether every output is the same (greedy: speculation changes
// the speed, never the output). Not part of `npm test`; speed only here, never in tests.

import { writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadEngine } from "../../src/extension/backends/load-engine";
import { planApply } from "../../src/extension/core/apply/strategy";
import { regionText } from "../../src/extension/core/apply/fast-apply";
import { measureFastApply, runFastApply, type FastApplyRun } from "../../src/extension/core/apply/fast-apply-run";
import type { Engine } from "../../src/extension/core/engine";
import { diffArrays } from "diff";
import { defaultModelFile, repoRoot } from "../support/default-model";

const { values } = parseArgs({
  options: {
    repeats: { type: "string", default: "3" },
    threads: { type: "string", default: "2" },
    lines: { type: "string", default: "300" },
    model: { type: "string" },
    json: { type: "string" },
  },
});
const repeats = Number(values.repeats);
const threads = Number(values.threads);
const lineCount = Number(values.lines);
const modelPath = values.model ?? defaultModelFile();

/** A TypeScript module of small functions, `lines` lines long. */
function sourceFile(lines: number): string {
  const out: string[] = [];
  for (let k = 1; out.length < lines; k++) {
    out.push(
      `export function computeTotal${k}(values: number[]): number {`,
      "  let total = 0;",
      "  for (const value of values) {",
      `    if (value > ${k}) {`,
      `      total += value * ${k};`,
      "    }",
      "  }",
      "  return total;",
      "}",
      "",
    );
  }
  return `${out.slice(0, lines).join("\n")}\n`;
}

const FILE = sourceFile(lineCount);
const MIDDLE = Math.max(1, Math.round(lineCount / 20));
/** "// ... existing code ..." leaves the loop out: no anchor can place this, fast apply merges it. */
const CHANGE = [`export function computeTotal${MIDDLE}(values: number[]): number {`, "  // ... existing code ...", "  return Math.round(total);", "}"].join("\n");

interface Run {
  readonly mode: "off" | "lookup";
  readonly repeat: number;
  readonly ms: number;
  readonly run: FastApplyRun;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const plan = planApply({ original: FILE, code: CHANGE, label: "totals.ts" });
  if (plan.kind !== "fast") throw new Error(`expected a fast apply, the plan is ${plan.kind}`);
  const request = { path: "src/totals.ts", language: "ts", original: regionText(FILE, plan.region), code: CHANGE };
  const calibration = join(repoRoot, ".cache", "llama-threads.json");
  const load = async (speculative: "off" | "lookup") =>
    (await loadEngine({ modelPath, backend: "llamacpp", contextSize: 8192, threads, threadCalibrationFile: calibration, speculative })).engine;
  const engines: Record<Run["mode"], Engine> = { off: await load("off"), lookup: await load("lookup") };
  const { budget } = measureFastApply(engines.off, request);
  console.log(`model ${engines.off.info.modelName}, ${threads} threads, capacity ${engines.off.info.capacity}; ${cpus()[0]?.model ?? "?"} × ${cpus().length}`);
  console.log(`file: ${lineCount} lines, region ${plan.region.start + 1}–${plan.region.end}; prompt ${budget.promptTokens} tokens, reply limit ${budget.maxTokens}; fits: ${budget.fits}`);
  if (!budget.fits) throw new Error("the fast apply does not fit the context: raise it or shorten the file");

  // Warm-up (thread pools, the verify-cost measurement of the lookup engine), not counted.
  for (const mode of ["off", "lookup"] as const) await runFastApply(engines[mode], { ...request, original: request.original.split("\n").slice(0, 20).join("\n") });

  const runs: Run[] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    // Alternated, and the order flips every repeat, so drift on a shared machine spreads over both.
    const order: Array<Run["mode"]> = repeat % 2 === 0 ? ["off", "lookup"] : ["lookup", "off"];
    for (const mode of order) {
      const started = performance.now();
      const run = await runFastApply(engines[mode], request);
      const ms = performance.now() - started;
      runs.push({ mode, repeat, ms, run });
      const s = run.stats.speculation;
      console.log(
        `repeat ${repeat + 1} ${mode.padEnd(6)} ${(ms / 1000).toFixed(2)} s, ${run.stats.replyTokens} tokens, ${run.stats.decodeTokensPerSec} tok/s decode, ttft ${Math.round(run.stats.ttftMs)} ms` +
          (s ? `, ${s.accepted}/${s.drafted} drafted accepted, ${s.tokensPerStep} tok/step` : "") +
          `, check: ${run.check.ok ? "ok" : run.check.message}`,
      );
    }
  }
  const of = (mode: Run["mode"]) => runs.filter((r) => r.mode === mode);
  const ratios = Array.from({ length: repeats }, (_, k) => of("off")[k]!.ms / of("lookup")[k]!.ms);
  const outputs = new Set(runs.map((r) => r.run.reply));
  // How much of the file the model copied as it was (lines of the original kept, in order).
  const original = request.original.split("\n");
  const copied = diffArrays(original, runs[0]!.run.parsed.code.split("\n")).reduce((n, part) => n + (part.added || part.removed ? 0 : (part.count ?? part.value.length)), 0);
  const lookup = of("lookup");
  const drafted = lookup.reduce((n, r) => n + (r.run.stats.speculation?.drafted ?? 0), 0);
  const accepted = lookup.reduce((n, r) => n + (r.run.stats.speculation?.accepted ?? 0), 0);
  const steps = lookup.reduce((n, r) => n + (r.run.stats.speculation?.steps ?? 0), 0);
  const tokens = lookup.reduce((n, r) => n + r.run.stats.replyTokens, 0);
  const summary = {
    model: engines.off.info.modelName,
    threads,
    lines: lineCount,
    repeats,
    promptTokens: budget.promptTokens,
    replyTokens: of("off")[0]!.run.stats.replyTokens,
    offSeconds: median(of("off").map((r) => r.ms / 1000)),
    lookupSeconds: median(lookup.map((r) => r.ms / 1000)),
    ratio: median(ratios),
    ratioMin: Math.min(...ratios),
    ratioMax: Math.max(...ratios),
    acceptance: drafted > 0 ? accepted / drafted : 0,
    tokensPerStep: steps > 0 ? tokens / steps : 1,
    identical: outputs.size === 1,
    copiedLines: copied,
    check: runs[0]!.run.check,
    cpu: cpus()[0]?.model,
  };
  console.log(
    `\nfast apply, ${lineCount}-line file, median of ${repeats}: without lookup ${summary.offSeconds.toFixed(2)} s, with lookup ${summary.lookupSeconds.toFixed(2)} s: ` +
      `${summary.ratio.toFixed(2)}× (${summary.ratioMin.toFixed(2)}–${summary.ratioMax.toFixed(2)}× over the repeats); ` +
      `acceptance ${(summary.acceptance * 100).toFixed(1)}%, ${summary.tokensPerStep.toFixed(2)} tokens per target step; ` +
      `outputs identical: ${summary.identical ? "yes" : `NO (${outputs.size} different)`}; the rewrite kept ${copied} of the file's ${original.length} lines; its check: ${summary.check.ok ? "ok" : summary.check.message}`,
  );
  if (values.json) writeFileSync(values.json, JSON.stringify({ ...summary, runs: runs.map((r) => ({ mode: r.mode, repeat: r.repeat, ms: r.ms, stats: r.run.stats })) }, null, 2));
  await engines.off.dispose();
  await engines.lookup.dispose();
  if (!summary.identical) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
