// Engines (loaded models) shared by every panel that uses the same model and options.
// Reference counted: the last panel to let go frees the model. Each engine runs in its own
// engine host process (one per model, not per panel), so a native crash costs a restart of
// that process, never the extension host.

import * as vscode from "vscode";
import { loadEngine, type LoadedEngine } from "../backends/load-engine";
import { abortable } from "../core/abort";
import { describeExit } from "../engine-host/engine-process";
import { ProxyEngine } from "../engine-host/proxy-engine";
import type { ServerSecrets } from "./server-secrets";
import type { ChatSettings } from "./settings";
import { engineSettingsOf } from "./panel-helpers";

interface Entry {
  readonly loading: Promise<LoadedEngine>;
  users: number;
  engine?: ProxyEngine;
}

export interface EngineLease {
  readonly loaded: LoadedEngine;
  release(): void;
}

export class EngineRegistry implements vscode.Disposable {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly log: vscode.LogOutputChannel,
    /** Where the measured default llama.cpp thread count is remembered across sessions. */
    private readonly threadCalibrationFile?: string,
    /** The remote backend's API keys (SecretStorage). */
    private readonly serverSecrets?: ServerSecrets,
  ) {}

  get loadedCount(): number {
    return this.entries.size;
  }

  /** The running engine processes: pid and crashes so far, per loaded model. */
  get engineProcesses(): Array<{ readonly pid: number | undefined; readonly crashes: number }> {
    return [...this.entries.values()].flatMap((e) => (e.engine ? [{ pid: e.engine.pid, crashes: e.engine.crashes }] : []));
  }

  async acquire(modelPath: string, settings: ChatSettings, fallbackModelPath?: string): Promise<EngineLease> {
    const key = JSON.stringify([modelPath, ...engineSettingsOf(settings)]);
    let entry = this.entries.get(key);
    if (!entry) {
      const name = modelPath.split(/[\\/]/).pop() ?? modelPath;
      const loading = Promise.resolve(
        vscode.window.withProgress(
          {
            location: vscode.ProgressLocation.Notification,
            title: settings.backend === "remote" ? `Stateful Chat: connecting to ${settings.server.url}…` : `Stateful Chat: loading ${name}…`,
            // Cancel stops the load (the engine process is stopped); every chat waiting for it
            // is told, and its next message (or Retry) loads again.
            cancellable: true,
          },
          async (_progress, token): Promise<LoadedEngine> => {
            const cancel = new AbortController();
            token.onCancellationRequested(() => cancel.abort());
            if (settings.backend === "remote") {
              // HTTP to a server, no native code: in this process, so each chat's waits (a busy
              // server) reach its panel and the key is read from SecretStorage per request.
              const connecting = loadEngine(
                { modelPath, backend: "remote", contextSize: settings.contextSize, server: { url: settings.server.url, kind: settings.server.kind } },
                { serverApiKey: this.serverSecrets?.reader(settings.server.url) },
              );
              // A connection that completes after Cancel is closed again.
              cancel.signal.addEventListener("abort", () => void connecting.then((loaded) => loaded.engine.dispose(), () => undefined), { once: true });
              return abortable(connecting, cancel.signal);
            }
            const engine = await ProxyEngine.start(
              {
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
              },
              {
                onCrash: (exit, restarting) =>
                  this.log.error(
                    `The engine process of ${name} ${describeExit(exit)}${restarting ? "; it restarts on the next turn" : "; crash loop, not restarting"}` +
                      (exit.stderrTail ? `\n${exit.stderrTail}` : ""),
                  ),
              },
              cancel.signal,
            );
            return { engine, notice: engine.notice };
          },
        ),
      );
      const created: Entry = { loading, users: 0 };
      entry = created;
      this.entries.set(key, entry);
      loading.then(
        (loaded) => {
          if (loaded.engine instanceof ProxyEngine) created.engine = loaded.engine;
          this.log.info(`Loaded ${loaded.engine.info.modelName} in engine process ${created.engine?.pid ?? "?"}: ${loaded.engine.info.details}`);
        },
        (error: unknown) => {
          this.log.error(`Loading ${modelPath} failed: ${String(error)}`);
          this.entries.delete(key);
        },
      );
    }
    entry.users++;
    let loaded: LoadedEngine;
    try {
      loaded = await entry.loading;
    } catch (error) {
      entry.users--;
      throw error;
    }
    let released = false;
    const owner = entry;
    return {
      loaded,
      release: () => {
        if (released) return;
        released = true;
        owner.users--;
        if (owner.users === 0 && this.entries.get(key) === owner) {
          this.entries.delete(key);
          void loaded.engine.dispose().then(() => this.log.info(`Freed ${loaded.engine.info.modelName}`));
        }
      },
    };
  }

  dispose(): void {
    for (const entry of this.entries.values()) void entry.loading.then((l) => l.engine.dispose(), () => undefined);
    this.entries.clear();
  }
}
