// Engines (loaded models) shared by every panel that uses the same model and options.
// Reference counted: the last panel to let go frees the model.

import * as vscode from "vscode";
import { loadEngine, type LoadedEngine } from "../backends/load-engine";
import type { ChatSettings } from "./settings";

interface Entry {
  readonly loading: Promise<LoadedEngine>;
  users: number;
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
  ) {}

  get loadedCount(): number {
    return this.entries.size;
  }

  async acquire(modelPath: string, settings: ChatSettings, fallbackModelPath?: string): Promise<EngineLease> {
    const key = JSON.stringify([modelPath, settings.backend, settings.contextSize, settings.threads, settings.computeUnits]);
    let entry = this.entries.get(key);
    if (!entry) {
      const name = modelPath.split(/[\\/]/).pop() ?? modelPath;
      const loading = Promise.resolve(
        vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: `Stateful Chat: loading ${name}…` },
          () =>
            loadEngine({
              modelPath,
              backend: settings.backend,
              contextSize: settings.contextSize,
              threads: settings.threads,
              threadCalibrationFile: this.threadCalibrationFile,
              computeUnits: settings.computeUnits,
              fallbackModelPath,
            }),
        ),
      );
      entry = { loading, users: 0 };
      this.entries.set(key, entry);
      loading.then(
        (loaded) => this.log.info(`Loaded ${loaded.engine.info.modelName}: ${loaded.engine.info.details}`),
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
