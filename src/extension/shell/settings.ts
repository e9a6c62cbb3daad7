// The only place that reads `statefulChat.*` settings; everything else gets plain options.

import * as vscode from "vscode";
import { isBackendChoice, type BackendChoice, type ComputeUnitsChoice } from "../backends/load-engine";
import { isServerKindChoice, type ServerKindChoice } from "../backends/remote/options";
import { isSpeculativeMode, type SpeculativeMode } from "../core/speculation/modes";
import type { TurnOptions } from "../core/turn-runner";
import { checkedChoice, checkedNumber, describeProblem, type SettingProblem } from "./setting-schema";

export interface ChatSettings {
  readonly modelPath: string;
  readonly backend: BackendChoice;
  readonly computeUnits: ComputeUnitsChoice;
  readonly threads?: number;
  readonly contextSize: number;
  readonly speculative: SpeculativeMode;
  /** Empty: none. */
  readonly draftModelPath: string;
  /** Backend `remote`: the inference server (its API key is in SecretStorage: server-secrets.ts). */
  readonly server: { readonly url: string; readonly kind: ServerKindChoice };
  readonly turn: TurnOptions;
  readonly context: { readonly enabled: boolean; readonly maxTokensPerTurn: number; readonly maxTokensPerItem: number };
}

export const SETTINGS_SECTION = "statefulChat";

export function readSettings(): ChatSettings {
  const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  const problems: SettingProblem[] = [];
  const num = (name: string) => checkedNumber(name, c.get<unknown>(name), problems);
  const threads = num("threads");
  const settings: ChatSettings = {
    modelPath: stringOf(c.get<unknown>("modelPath")).trim(),
    backend: checkedChoice<BackendChoice>("backend", c.get<unknown>("backend"), problems, isBackendChoice),
    computeUnits: checkedChoice<ComputeUnitsChoice>("computeUnits", c.get<unknown>("computeUnits"), problems),
    threads: threads > 0 ? threads : undefined,
    contextSize: num("contextSize"),
    speculative: checkedChoice<SpeculativeMode>("speculative", c.get<unknown>("speculative"), problems, isSpeculativeMode),
    draftModelPath: stringOf(c.get<unknown>("draftModelPath")).trim(),
    server: {
      url: stringOf(c.get<unknown>("server.url")).trim(),
      kind: checkedChoice<ServerKindChoice>("server.kind", c.get<unknown>("server.kind"), problems, isServerKindChoice),
    },
    turn: {
      maxTokens: num("maxNewTokens"),
      sampling: { temperature: num("temperature") },
      strategy: "stateful",
      overflow: checkedChoice<"summarize" | "truncate">("overflowStrategy", c.get<unknown>("overflowStrategy"), problems),
      systemPrompt: stringOf(c.get<unknown>("systemPrompt")),
      history: checkedChoice<"template" | "asGenerated">("historyRendering", c.get<unknown>("historyRendering"), problems),
    },
    context: {
      enabled: c.get<unknown>("context.enabled") !== false,
      maxTokensPerTurn: num("context.maxTokensPerTurn"),
      maxTokensPerItem: num("context.maxTokensPerFile"),
    },
  };
  reportSettingProblems(problems);
  return settings;
}

/** Corrections shown so far (the testing API reads them). Each setting and value is warned about once. */
export const settingWarnings: string[] = [];

function reportSettingProblems(problems: readonly SettingProblem[]): void {
  for (const problem of problems) {
    const message = `Stateful Chat: ${describeProblem(problem)}`;
    if (settingWarnings.includes(message)) continue;
    settingWarnings.push(message);
    void vscode.window.showWarningMessage(message, "Open Settings").then((choice) => {
      if (choice) void vscode.commands.executeCommand("workbench.action.openSettings", problem.setting);
    });
  }
}

/** One number setting, checked against its schema (corrections reported). */
function checkedSetting(name: string): number {
  const problems: SettingProblem[] = [];
  const value = checkedNumber(name, vscode.workspace.getConfiguration(SETTINGS_SECTION).get<unknown>(name), problems);
  reportSettingProblems(problems);
  return value;
}

function stringOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** `statefulChat.chatProvider.sessions`: cached sessions per model for VS Code's Chat (1–16). */
export function readProviderSessions(): number {
  return checkedSetting("chatProvider.sessions");
}

/** How long (ms) the provider keeps an unused model loaded; 0: until the window closes. */
export function readProviderIdleMs(): number {
  return checkedSetting("chatProvider.idleMinutes") * 60_000;
}

/** Apply's budget: files larger than this (bytes) are refused. */
export function readApplySettings(): { readonly maxFileBytes: number } {
  return { maxFileBytes: checkedSetting("apply.maxFileBytes") };
}

/** `statefulChat.history.maxConversations`: conversations kept in chat history. */
export function readHistoryMaxConversations(): number {
  return checkedSetting("history.maxConversations");
}

/** `statefulChat.kvSnapshots.maxDiskMB` in bytes (0: no snapshots). */
export function readSnapshotBudgetBytes(): number {
  return checkedSetting("kvSnapshots.maxDiskMB") * 1024 * 1024;
}

export async function writeModelPath(path: string): Promise<void> {
  await vscode.workspace.getConfiguration(SETTINGS_SECTION).update("modelPath", path, vscode.ConfigurationTarget.Global);
}
