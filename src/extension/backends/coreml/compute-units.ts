// "auto" compute units: time a short prefill + decode once per option and remember the
// fastest per model and OS version. The Neural Engine often rejects the stateful
// slice-update recipe and Core ML then falls back silently, so only a measurement tells.
import { promises as fs } from "node:fs";
import * as path from "node:path";
import type { ComputeUnitsName, NativeModel } from "./addon";

export const COMPUTE_UNIT_OPTIONS: readonly ComputeUnitsName[] = ["cpuAndNeuralEngine", "all", "cpuAndGPU", "cpuOnly"];

export type ComputeUnitsSetting = ComputeUnitsName | "auto";

/** Milliseconds for the probe on one option, or undefined when the option fails to load. */
export type ComputeUnitsProbe = (units: ComputeUnitsName) => Promise<number | undefined>;

interface Remembered {
  [key: string]: { readonly units: ComputeUnitsName; readonly timingsMs: Partial<Record<ComputeUnitsName, number>> };
}

async function readRemembered(file: string): Promise<Remembered> {
  try {
    return JSON.parse(await fs.readFile(file, "utf8")) as Remembered;
  } catch {
    return {};
  }
}

export async function resolveComputeUnits(
  setting: ComputeUnitsSetting,
  options: { readonly key: string; readonly memoryFile: string; readonly probe: ComputeUnitsProbe },
): Promise<{ readonly units: ComputeUnitsName; readonly measured: boolean }> {
  if (setting !== "auto") return { units: setting, measured: false };
  const remembered = await readRemembered(options.memoryFile);
  const known = remembered[options.key];
  if (known) return { units: known.units, measured: false };
  const timingsMs: Partial<Record<ComputeUnitsName, number>> = {};
  let best: ComputeUnitsName | undefined;
  for (const units of COMPUTE_UNIT_OPTIONS) {
    const elapsed = await options.probe(units);
    if (elapsed === undefined) continue;
    timingsMs[units] = elapsed;
    if (best === undefined || elapsed < (timingsMs[best] ?? Infinity)) best = units;
  }
  const units = best ?? "cpuAndNeuralEngine";
  remembered[options.key] = { units, timingsMs };
  await fs.mkdir(path.dirname(options.memoryFile), { recursive: true });
  await fs.writeFile(options.memoryFile, JSON.stringify(remembered, null, 1));
  return { units, measured: true };
}

/** The probe: a 64-token prefill and 8 greedy decode steps on a fresh state. */
export async function timePrefillAndDecode(model: NativeModel): Promise<number> {
  const session = model.createSession();
  try {
    const prompt = Int32Array.from({ length: Math.min(64, session.capacity - 8) }, (_, i) => (i * 31) % 1000);
    const started = performance.now();
    let next = await session.evaluate(prompt, { temperature: 0 });
    for (let step = 0; step < 8; step++) next = await session.evaluate(Int32Array.of(next), { temperature: 0 });
    return performance.now() - started;
  } finally {
    await session.dispose();
  }
}
