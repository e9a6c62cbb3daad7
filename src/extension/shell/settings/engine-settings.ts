// The settings that decide how an engine is loaded, as one list: the engine registry shares an
// engine between callers whose lists are equal, and a chat knows its model changed (a change
// applies on reset) when its key differs.

import type { ChatSettings } from "./settings";

/** The settings that decide how an engine is loaded: one list for the engine registry, the provider's pools and the chats. */
export function engineSettingsOf(settings: ChatSettings): readonly unknown[] {
  return [settings.backend, settings.contextSize, settings.threads, settings.computeUnits, settings.speculative, settings.draftModelPath, settings.server.url, settings.server.kind, settings.gpu, settings.gpuLayers];
}

/** Which model settings a session was opened with (a change applies on reset). */
export function modelKeyOf(settings: ChatSettings): string {
  return JSON.stringify([settings.modelPath, ...engineSettingsOf(settings)]);
}
