// Engines (loaded models) shared by every panel that uses the same model and options.
// Reference counted: the last panel to let go frees the model. Each engine runs in its own
// engine host process (one per model, not per panel), so a native crash costs a restart of
// that process, never the extension host. A load nobody waits for any more is stopped.

import * as vscode from "vscode";
import { basename } from "node:path";
import type { LoadedEngine } from "../../backends/load-engine";
import type { EngineRequest } from "../../core/engine-options";
import { describeExit } from "../../engine-host/engine-process";
import { ProxyEngine } from "../../engine-host/proxy-engine";
import { startEngine, startingDescription } from "../../engine-host/start-engine";
import type { ServerSecrets } from "../settings/server-secrets";
import { SharedLoads } from "../../core/shared-loads";
import type { ChatSettings } from "../settings/settings";
import { engineSettingsOf } from "../settings/engine-settings";
import type { GpuBinaries } from "./gpu-binaries";

export interface EngineLease {
  readonly loaded: LoadedEngine;
  release(): void;
}

export class EngineRegistry implements vscode.Disposable {
  private readonly loads = new SharedLoads<LoadedEngine>((loaded) => void loaded.engine.dispose().then(() => this.log.info(`Freed ${loaded.engine.info.modelName}`)));

  constructor(
    private readonly log: vscode.LogOutputChannel,
    /** Where the measured default llama.cpp thread count is remembered across sessions. */
    private readonly threadCalibrationFile?: string,
    /** The remote backend's API keys (SecretStorage). */
    private readonly serverSecrets?: ServerSecrets,
    /** The CUDA binary fetched on first use, before a load that may use it. */
    private readonly gpuBinaries?: GpuBinaries,
  ) {}

  get loadedCount(): number {
    return this.loads.size;
  }

  /** The running engine processes: pid and crashes so far, per loaded model. */
  get engineProcesses(): Array<{ readonly pid: number | undefined; readonly crashes: number }> {
    return this.loads.loadedValues().flatMap((l) => (l.engine instanceof ProxyEngine ? [{ pid: l.engine.pid, crashes: l.engine.crashes }] : []));
  }

  /**
   * The engine for `modelPath` and these settings, loaded once for every chat that asks.
   * `signal` (a panel's Stop, or the panel closed) ends this caller's wait; the load itself
   * stops when no caller waits for it any more (core/shared-loads.ts).
   */
  async acquire(modelPath: string, settings: ChatSettings, fallbackModelPath?: string, signal?: AbortSignal): Promise<EngineLease> {
    const key = JSON.stringify([modelPath, ...engineSettingsOf(settings)]);
    const lease = await this.loads.acquire(key, (abandoned) => this.load(modelPath, settings, fallbackModelPath, abandoned), signal);
    return { loaded: lease.value, release: () => lease.release() };
  }

  dispose(): void {
    this.loads.dispose();
  }

  private async load(modelPath: string, settings: ChatSettings, fallbackModelPath: string | undefined, abandoned: AbortSignal): Promise<LoadedEngine> {
    const request: EngineRequest = {
      modelPath,
      backend: settings.backend,
      contextSize: settings.contextSize,
      threads: settings.threads,
      threadCalibrationFile: this.threadCalibrationFile,
      computeUnits: settings.computeUnits,
      fallbackModelPath,
      speculative: settings.speculative,
      draftModelPath: settings.draftModelPath || undefined,
      gpu: settings.gpu,
      gpuLayers: settings.gpuLayers,
      server: { url: settings.server.url, kind: settings.server.kind },
    };
    const name = basename(modelPath);
    await this.gpuBinaries?.ensure(request);
    try {
      const loaded = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `Stateful Chat: ${startingDescription(request)}…`,
          // Cancel stops the load (the engine process is stopped, the server's requests
          // aborted); every chat waiting for it is told, and its next message (or Retry) loads again.
          cancellable: true,
        },
        (_progress, token): Promise<LoadedEngine> => {
          const cancel = new AbortController();
          token.onCancellationRequested(() => cancel.abort());
          return startEngine(request, {
            // Cancel, or every chat that waited for this load gone (each one's Stop or close).
            signal: AbortSignal.any([cancel.signal, abandoned]),
            serverApiKey: this.serverSecrets?.reader(settings.server.url),
            onCrash: (exit, restarting) =>
              this.log.error(
                `The engine process of ${name} ${describeExit(exit)}${restarting ? "; it restarts on the next turn" : "; crash loop, not restarting"}` +
                  (exit.stderrTail ? `\n${exit.stderrTail}` : ""),
              ),
          });
        },
      );
      const pid = loaded.engine instanceof ProxyEngine ? loaded.engine.pid : undefined;
      this.log.info(`Loaded ${loaded.engine.info.modelName} in engine process ${pid ?? "?"}: ${loaded.engine.info.details}`);
      return loaded;
    } catch (error) {
      this.log.error(`Loading ${modelPath} failed: ${String(error)}`);
      throw error;
    }
  }
}
