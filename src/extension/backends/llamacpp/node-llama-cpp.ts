// node-llama-cpp is ESM-only and must stay out of the esbuild bundle: load it lazily
// with a real dynamic import (TypeScript would otherwise turn import() into require()).

import type * as NodeLlamaCpp from "node-llama-cpp" with { "resolution-mode": "import" };
import { cmakeOptionsToLoad } from "./fast-build";
import { LLAMA_CPP_SDIST } from "./llama-cpp-release";

export type NodeLlamaCppModule = typeof NodeLlamaCpp;
export type Llama = NodeLlamaCpp.Llama;
export type LlamaModel = NodeLlamaCpp.LlamaModel;
export type LlamaContext = NodeLlamaCpp.LlamaContext;
export type LlamaContextSequence = NodeLlamaCpp.LlamaContextSequence;
export type Token = NodeLlamaCpp.Token;
export type ControlledEvaluateInputItem = NodeLlamaCpp.ControlledEvaluateInputItem;
export type ControlledEvaluateIndexOutput = NodeLlamaCpp.ControlledEvaluateIndexOutput;

const importModule = new Function("specifier", "return import(specifier)") as (
  specifier: string,
) => Promise<NodeLlamaCppModule>;

const recentErrors: string[] = [];

/** llama.cpp reports why a load failed only in its log; keep the last lines for error messages. */
export function takeRecentLlamaErrors(): string[] {
  return recentErrors.splice(0, recentErrors.length);
}

let llamaPromise: Promise<{ module: NodeLlamaCppModule; llama: Llama }> | undefined;

/**
 * One llama.cpp runtime per process, never built at runtime: our local build with a
 * persistent threadpool and the newer llama.cpp source when `npm run build:llama` made one (node-llama-cpp finds it by
 * its cmake options), otherwise the CPU binary shipped with the package.
 */
export function getLlamaRuntime(): Promise<{ module: NodeLlamaCppModule; llama: Llama }> {
  llamaPromise ??= (async () => {
    const module = await importModule("node-llama-cpp");
    const llama = await module.getLlama({
      gpu: false,
      build: "never",
      cmakeOptions: cmakeOptionsToLoad(),
      logLevel: module.LlamaLogLevel.error,
      logger: (level, message) => {
        if (level !== module.LlamaLogLevel.error && level !== module.LlamaLogLevel.fatal) return;
        recentErrors.push(message.trim());
        if (recentErrors.length > 8) recentErrors.shift();
      },
    });
    return { module, llama };
  })();
  llamaPromise.catch(() => {
    llamaPromise = undefined;
  });
  return llamaPromise;
}

/** How the loaded binary was made, for the engine's details and the bench report. */
export function describeLlamaBuild(llama: Llama): string {
  return llama.buildType === "localBuild"
    ? `local build of llama.cpp ${LLAMA_CPP_SDIST.name}==${LLAMA_CPP_SDIST.version}, persistent threadpool, grouped flash attention`
    : "prebuilt binary";
}
