// Starts the engine host process from its TypeScript source (no build needed), the way the
// extension starts the bundled out/engine-host.js.

import { join } from "node:path";
import { ProxyEngine, type ProxyEngineOptions } from "../../src/extension/engine-host/proxy-engine";
import type { LoadRequest } from "../../src/extension/engine-host/protocol";

export const ENGINE_HOST_SOURCE = {
  entry: join(__dirname, "..", "..", "src", "extension", "engine-host", "main.ts"),
  execArgv: ["--import", "tsx"],
} as const;

export function startProxyEngine(request: LoadRequest, options: ProxyEngineOptions = {}): Promise<ProxyEngine> {
  return ProxyEngine.start(request, { ...ENGINE_HOST_SOURCE, ...options });
}
