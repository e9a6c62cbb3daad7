// Starts the engine host process from its TypeScript source (no build needed), the way the
// extension starts the bundled out/engine-host.js.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProxyEngine, type ProxyEngineOptions } from "../../src/extension/engine-host/proxy-engine";
import type { LoadRequest } from "../../src/extension/engine-host/protocol";

export const ENGINE_HOST_SOURCE = {
  entry: join(__dirname, "..", "..", "src", "extension", "engine-host", "main.ts"),
  execArgv: ["--import", "tsx"],
} as const;

/**
 * Where this test process keeps measured calibrations (as the extension keeps them in its
 * storage): the speculative verify cost is measured on the first load, not again on each
 * restart after a kill.
 */
let calibrationDir: string | undefined;
function calibrationFile(): string {
  calibrationDir ??= mkdtempSync(join(tmpdir(), "stateful-chat-test-calibration-"));
  return join(calibrationDir, "llama-threads.json");
}

export function startProxyEngine(request: LoadRequest, options: ProxyEngineOptions = {}): Promise<ProxyEngine> {
  return ProxyEngine.start({ threadCalibrationFile: calibrationFile(), ...request }, { ...ENGINE_HOST_SOURCE, ...options });
}
