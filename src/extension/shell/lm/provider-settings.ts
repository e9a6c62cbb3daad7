// The settings the chat provider's engines load with: the panels' (statefulChat.*), with the
// provider's own context size (provider-context.ts) in place of statefulChat.contextSize.
//
// Engines are shared by settings key (engine-registry.ts, engineSettingsOf), and the context
// size is in the key: when the provider's size differs from the panels' (the default: the
// model's 32k against the panels' 4,096), the provider gets an engine of its own, in its own
// engine process. What that costs, measured with Qwen2.5-Coder-1.5B Q4_K_M (a 1,066 MiB file)
// at 32,768 tokens on this x86 CPU: 2,152 MiB of the process's own memory (the KV cache's
// 896 MiB, a compute buffer of ~300 MiB, the Node runtime, and llama.cpp's repacked copy of
// most of the weights, which is per process) and 950 MiB of the mapped model file, pages that
// processes mapping the same file share. So a second engine costs up to the weights' size
// again, plus its caches: the plan (provider-context.ts) counts both. Where the two sizes
// agree, panels and the provider share one engine. ModelPools keys its pools on the same
// settings, so a changed plan (another setting, another session count) releases the old
// engine and loads the new one.

import type { ChatSettings } from "../settings/settings";
import { readProviderContextSize, readProviderSessions } from "../settings/settings";
import type { CatalogModel } from "./lm-catalog";
import { ProviderContexts, type ProviderContext } from "./provider-context";

/** One plan per model and settings for this window (the same answer for VS Code's picker and the engine). */
const plans = new ProviderContexts();

export function providerContextOf(model: CatalogModel, settings: ChatSettings): ProviderContext {
  return plans.of({
    setting: readProviderContextSize(),
    panelContextSize: settings.contextSize,
    remote: settings.backend === "remote",
    trainContext: model.summary?.contextLength,
    kv: model.kv,
    weightsBytes: model.sizeBytes,
    sessions: readProviderSessions(),
  });
}

/** `settings` with the provider's context size for `model`: what its engine is acquired and its pool keyed with. */
export function providerEngineSettings(model: CatalogModel, settings: ChatSettings): ChatSettings {
  return { ...settings, contextSize: providerContextOf(model, settings).contextSize };
}
