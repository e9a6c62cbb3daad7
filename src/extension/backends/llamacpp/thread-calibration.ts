// The default thread count is measured, not guessed: how fast llama.cpp decodes with N
// threads depends on the binary (the prebuilt one gains nothing from a second thread, our
// threadpool build does), the model size and the machine. On first load of a model each
// candidate count decodes a few tokens; the fastest wins (fewer threads on a near tie, they
// leave the editor more room) and is remembered per model, binary and machine.

import { availableParallelism, cpus } from "node:os";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { LlamaKvState } from "./llama-state";
import type { LlamaModel } from "./node-llama-cpp";

const PROMPT = "<|im_start|>user\nWrite a short poem about the sea.<|im_end|>\n<|im_start|>assistant\n";
const WARMUP_TOKENS = 4;
const MEASURED_TOKENS = 16;
/** Within this fraction of the best, fewer threads win. */
const TIE = 0.05;

export interface ThreadCalibration {
  readonly threads: number;
  /** Decode tokens/s per candidate count, as measured. */
  readonly tokensPerSecond: Readonly<Record<number, number>>;
}

/** 1, 2, 4, … up to the core count, plus the core count itself. */
export function candidateThreadCounts(cores = availableParallelism()): number[] {
  const counts = new Set<number>();
  for (let n = 1; n < cores; n *= 2) counts.add(n);
  counts.add(Math.max(1, cores));
  return [...counts].sort((a, b) => a - b);
}

export function pickFastest(tokensPerSecond: Readonly<Record<number, number>>): number {
  const entries = Object.entries(tokensPerSecond).map(([t, speed]) => [Number(t), speed] as const);
  const best = Math.max(...entries.map(([, speed]) => speed));
  return entries.filter(([, speed]) => speed >= best * (1 - TIE)).sort((a, b) => a[0] - b[0])[0][0];
}

async function decodeSpeed(model: LlamaModel, threads: number): Promise<number> {
  const state = await LlamaKvState.create(model, { contextSize: 256, threads, batchSize: 64 }, () => {});
  try {
    const prompt = model.tokenize(PROMPT, true) as number[];
    let token = (await state.evaluate(prompt, { temperature: 0 }))!;
    let start = 0;
    for (let i = 0; i < WARMUP_TOKENS + MEASURED_TOKENS; i++) {
      if (i === WARMUP_TOKENS) start = performance.now();
      token = (await state.evaluate([token], { temperature: 0 }))!;
    }
    return (MEASURED_TOKENS * 1000) / (performance.now() - start);
  } finally {
    await state.dispose();
  }
}

/** Each candidate twice, interleaved, best of the two: one slow sample does not decide. */
async function calibrateThreads(model: LlamaModel, candidates = candidateThreadCounts()): Promise<ThreadCalibration> {
  const speeds: Record<number, number> = {};
  if (candidates.length === 1) return { threads: candidates[0], tokensPerSecond: { [candidates[0]]: 0 } };
  for (let round = 0; round < 2; round++) {
    for (const threads of candidates) {
      speeds[threads] = Math.max(speeds[threads] ?? 0, Math.round((await decodeSpeed(model, threads)) * 10) / 10);
    }
  }
  return { threads: pickFastest(speeds), tokensPerSecond: speeds };
}

/** Measured in this process already (every engine load of a model would otherwise re-measure). */
const measuredHere = new Map<string, ThreadCalibration>();

/** The calibration for this model file, binary and machine, measured once and kept in `file`. */
export async function calibratedThreads(model: LlamaModel, identity: string, file: string | undefined): Promise<ThreadCalibration> {
  const key = `${identity}|${cpus()[0]?.model ?? ""}|${availableParallelism()}`;
  const here = measuredHere.get(key);
  if (here && !file) return here;
  let known: Record<string, ThreadCalibration> = {};
  if (file) {
    try {
      known = JSON.parse(await readFile(file, "utf8")) as Record<string, ThreadCalibration>;
      if (known[key]) return known[key];
    } catch {
      known = {};
    }
  }
  const result = here ?? (await calibrateThreads(model));
  measuredHere.set(key, result);
  if (file) {
    await mkdir(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify({ ...known, [key]: result }, null, 2));
    await rename(temporary, file);
  }
  return result;
}
