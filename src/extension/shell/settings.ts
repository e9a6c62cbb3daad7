// The only place that reads `statefulChat.*` settings; everything else gets plain options.

import * as vscode from "vscode";
import type { BackendChoice, ComputeUnitsChoice } from "../backends/load-engine";
import { isSpeculativeMode, type SpeculativeMode } from "../core/speculation/modes";
import type { TurnOptions } from "../core/turn-runner";

export interface ChatSettings {
  readonly modelPath: string;
  readonly backend: BackendChoice;
  readonly computeUnits: ComputeUnitsChoice;
  readonly threads?: number;
  readonly contextSize: number;
  readonly speculative: SpeculativeMode;
  /** Empty: none. */
  readonly draftModelPath: string;
  readonly turn: TurnOptions;
  readonly context: { readonly enabled: boolean; readonly maxTokensPerTurn: number; readonly maxTokensPerItem: number };
}

export const SETTINGS_SECTION = "statefulChat";

export function readSettings(): ChatSettings {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const threads = numberIn(c.get<unknown>("threads"), { min: 0, integer: true }, 0);
  return {
    modelPath: c.get<string>("modelPath", "").trim(),
    backend: c.get<BackendChoice>("backend", "auto"),
    computeUnits: c.get<ComputeUnitsChoice>("computeUnits", "auto"),
    threads: threads > 0 ? threads : undefined,
    contextSize: numberIn(c.get<unknown>("contextSize"), { min: 256, integer: true }, 4096),
    speculative: oneOf(c.get<unknown>("speculative"), isSpeculativeMode, "auto"),
    draftModelPath: c.get<string>("draftModelPath", "").trim(),
    turn: {
      maxTokens: numberIn(c.get<unknown>("maxNewTokens"), { min: 1, integer: true }, 512),
      sampling: { temperature: numberIn(c.get<unknown>("temperature"), { min: 0, max: 2 }, 0) },
      strategy: "stateful",
      overflow: c.get<"summarize" | "truncate">("overflowStrategy", "summarize"),
      systemPrompt: c.get<string>("systemPrompt", ""),
      history: c.get<string>("historyRendering", "template") === "asGenerated" ? "asGenerated" : "template",
    },
    context: {
      enabled: c.get<boolean>("context.enabled", true),
      maxTokensPerTurn: numberIn(c.get<unknown>("context.maxTokensPerTurn"), { min: 0, integer: true }, 1024),
      maxTokensPerItem: numberIn(c.get<unknown>("context.maxTokensPerFile"), { min: 0, integer: true }, 512),
    },
  };
}

/**
 * VS Code enforces the schema's minimum/maximum only in the Settings editor; a hand-edited
 * settings.json may hold anything. A number outside the schema gets the default (the engine
 * would refuse it, e.g. a negative temperature).
 */
function numberIn(value: unknown, range: { readonly min?: number; readonly max?: number; readonly integer?: boolean }, fallback: number): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return fallback;
  if (range.integer && !Number.isInteger(value)) return fallback;
  if ((range.min !== undefined && value < range.min) || (range.max !== undefined && value > range.max)) return fallback;
  return value;
}

/** A hand-edited settings.json may hold anything: a value outside the schema gets the default. */
function oneOf<T>(value: unknown, valid: (v: unknown) => v is T, fallback: T): T {
  return valid(value) ? value : fallback;
}

/** `statefulChat.kvSnapshots.maxDiskMB` in bytes (0: no snapshots). */
export function readSnapshotBudgetBytes(): number {
  const megabytes = vscode.workspace.getConfiguration(SETTINGS_SECTION).get<number>("kvSnapshots.maxDiskMB", 2048);
  return Math.max(0, megabytes) * 1024 * 1024;
}

export async function writeModelPath(path: string): Promise<void> {
  await vscode.workspace.getConfiguration(SETTINGS_SECTION).update("modelPath", path, vscode.ConfigurationTarget.Global);
}
