// node-llama-cpp is ESM-only and must stay out of the esbuild bundle: load it lazily
// with a real dynamic import (TypeScript would otherwise turn import() into require()).

import type * as NodeLlamaCpp from "node-llama-cpp" with { "resolution-mode": "import" };
import { buildOptionsOf, fastBuildToLoad, llamaBuildLabel, type LlamaBuildKind } from "./fast-build";
import { loadedCpuVariant } from "./cpu-variant";
import { LLAMA_CPP_SDIST } from "./llama-cpp-release";
import { gpuApiName, type GpuType } from "./gpu-choice";
import { BackendUnavailableError } from "../../core/errors";
import { readFileSync } from "node:fs";
import { foreignLlamaLibraries, withoutLlamaFolders } from "./foreign-libraries";

export type NodeLlamaCppModule = typeof NodeLlamaCpp;
export type Llama = NodeLlamaCpp.Llama;
export type LlamaModel = NodeLlamaCpp.LlamaModel;
export type LlamaContext = NodeLlamaCpp.LlamaContext;
export type LlamaContextSequence = NodeLlamaCpp.LlamaContextSequence;
export type Token = NodeLlamaCpp.Token;
export type ControlledEvaluateInputItem = NodeLlamaCpp.ControlledEvaluateInputItem;
export type ControlledEvaluateIndexOutput = NodeLlamaCpp.ControlledEvaluateIndexOutput;

// A real dynamic import of the ESM-only package, which esbuild would otherwise turn into a require.
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- a constant body, no input
const importModule = new Function("specifier", "return import(specifier)") as (
  specifier: string,
) => Promise<NodeLlamaCppModule>;

/** The package itself (loading it loads no llama.cpp binary). */
export function importNodeLlamaCpp(): Promise<NodeLlamaCppModule> {
  return importModule("node-llama-cpp");
}

const recentErrors: string[] = [];

/** llama.cpp reports why a load failed only in its log; keep the last lines for error messages. */
export function takeRecentLlamaErrors(): string[] {
  return recentErrors.splice(0, recentErrors.length);
}

/** The binary a runtime was loaded from: our CPU build or node-llama-cpp's CPU prebuilt (`cpu`), or a GPU prebuilt. */
export type RuntimeBinary = "cpu" | GpuType;

interface Runtime {
  readonly binary: RuntimeBinary;
  readonly loading: Promise<{ module: NodeLlamaCppModule; llama: Llama }>;
}

let runtime: Runtime | undefined;
/** Which of our builds the CPU runtime asked node-llama-cpp for (none: its prebuilt). */
let askedBuild: "native" | "portable" | undefined;

/** The binary this process has loaded (or is loading), if any: a process holds one for good. */
export function loadedRuntimeBinary(): RuntimeBinary | undefined {
  return runtime?.binary;
}

/**
 * One llama.cpp runtime per process, never built at runtime. On the CPU: our local build
 * with a persistent threadpool and the newer llama.cpp source when `npm run build:llama`
 * made one (node-llama-cpp finds it by its cmake options), otherwise the CPU binary shipped
 * with the package. On a GPU: node-llama-cpp's prebuilt binary for it. The binaries share
 * library names, so a process that loaded one cannot load another: asking for another is
 * refused (the engine process runs each model in a process of its own).
 */
export function getLlamaRuntime(binary: RuntimeBinary = runtime?.binary ?? "cpu"): Promise<{ module: NodeLlamaCppModule; llama: Llama }> {
  if (runtime && runtime.binary !== binary) {
    return Promise.reject(
      new BackendUnavailableError(`This process already runs llama.cpp's ${describeBinary(runtime.binary)} binary; the ${describeBinary(binary)} one needs a process of its own (the engine process).`),
    );
  }
  if (runtime) return runtime.loading;
  const loading = (async () => {
    // Before loading: a process with another llama.cpp's folder on its library path corrupts its
    // heap while loading (seen: "corrupted size vs. prev_size"), before any check after the load.
    const shadowing = withoutLlamaFolders(process.env.LD_LIBRARY_PATH).dropped;
    if (shadowing.length > 0) throw new BackendUnavailableError(shadowingMessage(`LD_LIBRARY_PATH names another llama.cpp's folder (${shadowing.join(", ")})`));
    const module = await importNodeLlamaCpp();
    askedBuild = binary === "cpu" ? fastBuildToLoad() : undefined;
    const llama = await module.getLlama({
      gpu: binary === "cpu" ? false : binary,
      build: "never",
      cmakeOptions: askedBuild ? { ...buildOptionsOf(askedBuild) } : undefined,
      logLevel: module.LlamaLogLevel.error,
      logger: (level, message) => {
        if (level !== module.LlamaLogLevel.error && level !== module.LlamaLogLevel.fatal) return;
        recentErrors.push(message.trim());
        if (recentErrors.length > 8) recentErrors.shift();
      },
    });
    const foreign = foreignLibrariesLoaded();
    if (foreign.length > 0) {
      throw new BackendUnavailableError(shadowingMessage(`another llama.cpp's libraries were loaded in place of node-llama-cpp's: ${foreign.join(", ")}`));
    }
    if ((llama.gpu === false ? "cpu" : llama.gpu) !== binary) {
      throw new BackendUnavailableError(`node-llama-cpp loaded its ${String(llama.gpu)} binary instead of the ${describeBinary(binary)} one`);
    }
    return { module, llama };
  })();
  const current: Runtime = { binary, loading };
  runtime = current;
  // A failed load may not have loaded anything: let a later call try again.
  loading.catch(() => {
    if (runtime === current) runtime = undefined;
  });
  return loading;
}

function describeBinary(binary: RuntimeBinary): string {
  return binary === "cpu" ? "CPU" : gpuApiName(binary);
}

/** How the loaded binary was made, for the engine's details and the bench report. */
export function describeLlamaBuild(llama: Llama): string {
  if (llama.gpu !== false) return `prebuilt ${gpuApiName(llama.gpu)} binary`;
  const kind: LlamaBuildKind = llama.buildType === "localBuild" ? (askedBuild ?? "native") : "prebuilt";
  const variant = loadedCpuVariant();
  const label = `${llamaBuildLabel(kind)}${variant ? ` (CPU variant ${variant})` : ""}`;
  return kind === "prebuilt" ? label : `${label}: llama.cpp ${LLAMA_CPP_SDIST.name}==${LLAMA_CPP_SDIST.version}, persistent threadpool, grouped flash attention`;
}

/** llama.cpp libraries this process mapped from outside the addon's folder (Linux; none elsewhere). */
function foreignLibrariesLoaded(): string[] {
  if (process.platform !== "linux") return [];
  try {
    return foreignLlamaLibraries(readFileSync("/proc/self/maps", "utf8"));
  } catch {
    return [];
  }
}

function shadowingMessage(what: string): string {
  return `${what}: its libraries have the names node-llama-cpp's load, so they would run in their place. Start VS Code (or the CLI) without that folder on LD_LIBRARY_PATH.`;
}
