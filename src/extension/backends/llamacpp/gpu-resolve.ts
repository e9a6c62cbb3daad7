// Resolves the GPU settings of one model load into a decision (gpu-choice.ts): probes the
// GPU types to try in child processes before this process loads any binary, or describes
// the binary it already runs (one per process).

import { BackendUnavailableError } from "../../core/errors";
import type { GpuChoice, GpuLayersChoice } from "../../core/engine-options";
import { decideGpu, gpuApiName, gpuTypesToTry, type GpuAttempt, type GpuDecision, type GpuType } from "./gpu-choice";
import { describeLoadedGpu, probeGpu, type ProbeRequest } from "./gpu-probe";
import { nodeLlamaCppPackageDir } from "./fast-build";
import { cudaPackagesFor } from "../../gpu-binaries/gpu-packages";
import { resolvablePackage } from "../../gpu-binaries/node-resolution";
import { getLlamaRuntime, importNodeLlamaCpp, loadedRuntimeBinary } from "./node-llama-cpp";

export interface GpuRequest {
  readonly choice: GpuChoice;
  readonly layers: GpuLayersChoice;
  readonly modelPath: string;
  readonly contextSize: number;
  readonly batchSize: number;
  readonly reservedStates: number;
}

/** Probes run once per process for the same request (a draft model, a reload). */
const probed = new Map<string, Promise<GpuAttempt>>();

function probeOnce(request: ProbeRequest): Promise<GpuAttempt> {
  const key = JSON.stringify(request);
  let attempt = probed.get(key);
  if (!attempt) {
    attempt = probeGpu(request);
    probed.set(key, attempt);
  }
  return attempt;
}

export async function resolveGpu(request: GpuRequest): Promise<GpuDecision> {
  const base = { choice: request.choice, layers: request.layers, reservedStates: request.reservedStates };
  if (request.choice === "off" || request.layers === 0) return decideGpu({ ...base, supported: [], attempts: [] });
  const probeRequest = (type: GpuType): ProbeRequest => ({ type, modelPath: request.modelPath, contextSize: request.contextSize, batchSize: request.batchSize });
  const loaded = loadedRuntimeBinary();
  if (loaded === "cpu") {
    // A model loaded after one that runs on the CPU (a draft model after a fallback) stays there.
    const notice = request.choice === "auto" ? undefined : `GPU not used: this process already runs llama.cpp on the CPU, and ${gpuApiName(request.choice)} needs a process of its own (the engine process).`;
    return { binary: "cpu", reason: "this process runs the CPU binary", notice };
  }
  if (loaded !== undefined) {
    if (request.choice !== "auto" && request.choice !== loaded) {
      throw new BackendUnavailableError(`This process already runs llama.cpp on ${gpuApiName(loaded)}; ${gpuApiName(request.choice)} needs a process of its own (the engine process).`);
    }
    const { module, llama } = await getLlamaRuntime(loaded);
    const attempt = await describeLoadedGpu(module, llama, probeRequest(loaded));
    return decideGpu({ ...base, supported: [loaded], attempts: [attempt] });
  }
  const module = await importNodeLlamaCpp();
  const supported = (await module.getLlamaGpuTypes("supported")).filter((t): t is GpuType => t !== false);
  const valid = new Set(await module.getLlamaGpuTypes("allValid"));
  const attempts: GpuAttempt[] = [];
  for (const type of gpuTypesToTry(request.choice, supported).filter((t) => valid.has(t))) {
    const missing = type === "cuda" ? missingCudaBinary() : undefined;
    // Without a driver the shell fetched nothing: a named `cuda` is then told "no CUDA driver found".
    if (missing && !supported.includes("cuda")) continue;
    attempts.push(missing ? { type, loaded: false, notInstalled: true, error: missing } : await probeOnce(probeRequest(type)));
    if (decideGpu({ ...base, supported, attempts }).binary !== "cpu") break;
  }
  return decideGpu({ ...base, supported, attempts });
}

/**
 * Why the CUDA binary cannot be probed here: the VSIX leaves it out and the shell fetches it on
 * first use (gpu-binaries/), linking it where node-llama-cpp's import looks; when it is not
 * there the fetch failed or was refused, and its notice already told the user.
 */
function missingCudaBinary(): string | undefined {
  const [binary] = cudaPackagesFor(process.platform, process.arch);
  const packageDir = nodeLlamaCppPackageDir();
  if (!binary || !packageDir || resolvablePackage(packageDir, binary)) return undefined;
  return `the CUDA binary (${binary}) is not installed`;
}
