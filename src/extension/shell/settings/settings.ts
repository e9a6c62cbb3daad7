// The only place that reads `statefulChat.*` settings; everything else gets plain options.

import * as vscode from "vscode";
import {
  isBackendChoice,
  isComputeUnitsChoice,
  isGpuChoice,
  isServerKindChoice,
  type BackendChoice,
  type ComputeUnitsChoice,
  type GpuChoice,
  type GpuLayersChoice,
  type ServerKindChoice,
} from "../../core/engine-options";
import { isSpeculativeMode, type SpeculativeMode } from "../../core/speculation/modes";
import type { TurnOptions } from "../../core/turn-runner";
import { checkedAutoOrCount, checkedChoice, checkedNumber, describeProblem, SETTINGS_PREFIX, type SettingProblem } from "./setting-schema";
import { SettingReader } from "./setting-reader";
import { describeMigrationStep, migrateRenamedSettings, type MigratableConfiguration, type MigrationScope, SETTING_RENAMES, type SettingLevel } from "./settings-migration";
import { WorkspaceSettingFiles } from "./workspace-setting-files";

export interface ChatSettings {
  readonly modelPath: string;
  readonly backend: BackendChoice;
  readonly computeUnits: ComputeUnitsChoice;
  readonly threads?: number;
  readonly contextSize: number;
  readonly speculative: SpeculativeMode;
  /** llama.cpp: where the layers run, and how many go to the GPU (statefulChat.gpu, statefulChat.gpuLayers). */
  readonly gpu: GpuChoice;
  readonly gpuLayers: GpuLayersChoice;
  /** Empty: none. */
  readonly draftModelPath: string;
  /** Backend `remote`: the inference server (its API key is in SecretStorage: server-secrets.ts). */
  readonly server: { readonly url: string; readonly kind: ServerKindChoice };
  readonly turn: TurnOptions;
  readonly context: { readonly enabled: boolean; readonly maxTokensPerTurn: number; readonly maxTokensPerItem: number };
}

export const SETTINGS_SECTION = "statefulChat";

/**
 * `statefulChat.*` as this extension reads it (setting-reader.ts): machine-scoped settings from
 * user settings only, a renamed setting under its old name until that is migrated. Scoped to
 * the active editor's folder, for the settings a folder may set (`resource` scope).
 */
function configuration(): { get<T = unknown>(name: string): T | undefined } {
  workspaceSettingFiles?.start();
  const reader = new SettingReader(vscode.workspace.getConfiguration(SETTINGS_SECTION, vscode.window.activeTextEditor?.document.uri), reportIgnoredWorkspaceValue);
  return { get: <T>(name: string) => reader.value(name) as T | undefined };
}

export function readSettings(): ChatSettings {
  const c = configuration();
  const problems: SettingProblem[] = [];
  const num = (name: string) => checkedNumber(name, c.get<unknown>(name), problems);
  const threads = num("advanced.threads");
  const settings: ChatSettings = {
    modelPath: stringOf(c.get<unknown>("modelPath")).trim(),
    backend: checkedChoice<BackendChoice>("backend", c.get<unknown>("backend"), problems, isBackendChoice),
    computeUnits: checkedChoice<ComputeUnitsChoice>("computeUnits", c.get<unknown>("computeUnits"), problems, isComputeUnitsChoice),
    threads: threads > 0 ? threads : undefined,
    contextSize: num("contextSize"),
    speculative: checkedChoice<SpeculativeMode>("speculative", c.get<unknown>("speculative"), problems, isSpeculativeMode),
    gpu: checkedChoice<GpuChoice>("gpu", c.get<unknown>("gpu"), problems, isGpuChoice),
    gpuLayers: checkedGpuLayers(c.get<unknown>("gpuLayers"), problems),
    draftModelPath: stringOf(c.get<unknown>("draftModelPath")).trim(),
    server: {
      url: stringOf(c.get<unknown>("server.url")).trim(),
      kind: checkedChoice<ServerKindChoice>("server.kind", c.get<unknown>("server.kind"), problems, isServerKindChoice),
    },
    turn: {
      maxTokens: num("reply.maxTokens"),
      sampling: { temperature: num("temperature") },
      strategy: "stateful",
      overflow: checkedChoice<"summarize" | "truncate">("overflowStrategy", c.get<unknown>("overflowStrategy"), problems),
      systemPrompt: stringOf(c.get<unknown>("systemPrompt")),
      history: checkedChoice<"template" | "asGenerated">("advanced.historyRendering", c.get<unknown>("advanced.historyRendering"), problems),
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

/**
 * A workspace (or folder) settings file sets a setting that only user settings may set: it is
 * ignored, and said so once per setting, naming it.
 */
function reportIgnoredWorkspaceValue(name: string): void {
  const setting = SETTINGS_PREFIX + name;
  const message = `Stateful Chat: ${setting} in this workspace's settings is ignored: it names something on this machine (a model file, a server, a disk budget), so only your user settings set it.`;
  if (settingWarnings.includes(message)) return;
  settingWarnings.push(message);
  void vscode.window.showWarningMessage(message, "Open User Settings").then((choice) => {
    if (choice) void vscode.commands.executeCommand("workbench.action.openSettings", setting);
  });
}

/** Set by registerSettings: the watcher of the workspace's settings files, started on the first settings read. */
let workspaceSettingFiles: WorkspaceSettingFiles | undefined;

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
  const value = checkedNumber(name, configuration().get<unknown>(name), problems);
  reportSettingProblems(problems);
  return value;
}

/** `statefulChat.gpuLayers`: "auto", a whole number >= 0, or such a number written as a string; anything else → auto. */
function checkedGpuLayers(value: unknown, problems: SettingProblem[]): GpuLayersChoice {
  if (value === undefined || value === null || value === "auto") return "auto";
  const n = typeof value === "string" && /^[0-9]+$/.test(value.trim()) ? Number(value.trim()) : value;
  if (typeof n === "number" && Number.isInteger(n) && n >= 0) return n;
  problems.push({ setting: "statefulChat.gpuLayers", value, used: "auto", reason: "is neither auto nor a whole number >= 0" });
  return "auto";
}

function stringOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** `statefulChat.chatProvider.sessions`: cached sessions per model for VS Code's Chat (1–16). */
export function readProviderSessions(): number {
  return checkedSetting("chatProvider.sessions");
}

/** `statefulChat.chatProvider.contextSize`: `auto`, or tokens (checkedAutoOrCount says what is corrected). */
/** statefulChat.chatProvider.contextSize: `auto` (planned from memory, lm/provider-context.ts) or a token count. */
export type ProviderContextSetting = "auto" | number;

export function readProviderContextSize(): ProviderContextSetting {
  const c = configuration();
  const problems: SettingProblem[] = [];
  const value = checkedAutoOrCount("chatProvider.contextSize", c.get<unknown>("chatProvider.contextSize"), problems);
  reportSettingProblems(problems);
  return value;
}

/** `statefulChat.chatProvider.stablePrefixFirst`: per-conversation blocks rendered after the stable instructions and tools (default on). */
export function readProviderStablePrefixFirst(): boolean {
  const c = configuration();
  return c.get<unknown>("chatProvider.stablePrefixFirst") !== false;
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

/** `statefulChat.kvSnapshots.maxDiskMegabytes` (formerly `maxDiskMB`) in bytes (0: no snapshots). */
export function readSnapshotBudgetBytes(): number {
  return checkedSetting("kvSnapshots.maxDiskMegabytes") * 1024 * 1024;
}

export async function writeModelPath(path: string): Promise<void> {
  await vscode.workspace.getConfiguration(SETTINGS_SECTION).update("modelPath", path, vscode.ConfigurationTarget.Global);
}

const TARGETS: Readonly<Record<SettingLevel, vscode.ConfigurationTarget>> = {
  global: vscode.ConfigurationTarget.Global,
  workspace: vscode.ConfigurationTarget.Workspace,
  workspaceFolder: vscode.ConfigurationTarget.WorkspaceFolder,
};

function migratable(config: vscode.WorkspaceConfiguration): MigratableConfiguration {
  return { inspect: (name) => config.inspect(name), update: (name, value, level) => config.update(name, value, TARGETS[level]) };
}

/**
 * Moves values set under renamed settings' old names to the new names in user settings; the
 * workspace's and (multi-root) folders' old names are reported, never rewritten; nothing at all
 * in Restricted Mode (run again when trust is granted).
 */
async function migrateSettings(log: vscode.LogOutputChannel): Promise<void> {
  const scopes: MigrationScope[] = [
    { config: migratable(vscode.workspace.getConfiguration(SETTINGS_SECTION)), levels: vscode.workspace.workspaceFolders?.length ? ["global", "workspace"] : ["global"] },
  ];
  // In a single-folder window the folder's settings are the workspace's; only a .code-workspace has folders of its own.
  if (vscode.workspace.workspaceFile) {
    for (const folder of vscode.workspace.workspaceFolders ?? []) scopes.push({ config: migratable(vscode.workspace.getConfiguration(SETTINGS_SECTION, folder.uri)), levels: ["workspaceFolder"] });
  }
  const steps = await migrateRenamedSettings(scopes, { trusted: vscode.workspace.isTrusted });
  for (const step of steps) (step.outcome === "failed" ? log.warn : log.info).call(log, describeMigrationStep(step));
  const left = steps.filter((step) => step.outcome === "left");
  if (left.length > 0 && !toldAboutWorkspaceNames) {
    toldAboutWorkspaceNames = true;
    const names = [...new Set(left.map((step) => `${SETTINGS_SECTION}.${step.from} → ${SETTINGS_SECTION}.${step.to}`))].join(", ");
    const open = "Open Workspace Settings";
    void vscode.window.showInformationMessage(`Stateful Chat: this workspace's settings use renamed settings (${names}). They still work; rename them when you like. Workspace settings are not changed for you.`, open).then((choice) => {
      if (choice === open) void vscode.commands.executeCommand("workbench.action.openWorkspaceSettingsFile");
    });
  }
}

/** The workspace's old setting names are told once per window, not on every migration run. */
let toldAboutWorkspaceNames = false;

/**
 * Settings upkeep, none of it on activation's path: renamed settings migrated just after
 * activation, whenever an old name is written again (Settings Sync from an older version) and
 * when the workspace is trusted; the workspace's settings files watched from the first
 * settings read.
 */
export function registerSettings(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const files = new WorkspaceSettingFiles((name) => reportIgnoredWorkspaceValue(name));
  workspaceSettingFiles = files;
  // One migration at a time: the migration's own writes fire the change event again (then there is nothing left to move).
  let migrating: Promise<void> = Promise.resolve();
  const migrate = () => {
    migrating = migrating.then(() => migrateSettings(log)).catch((error: unknown) => log.warn(`Settings: migration failed: ${String(error)}`));
  };
  const timer = setTimeout(migrate, 0);
  context.subscriptions.push(
    files,
    { dispose: () => clearTimeout(timer) },
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (SETTING_RENAMES.some((r) => event.affectsConfiguration(`${SETTINGS_SECTION}.${r.from}`))) migrate();
    }),
    // Nothing is migrated in Restricted Mode: the user settings' turn comes when the workspace is trusted.
    vscode.workspace.onDidGrantWorkspaceTrust(migrate),
    { dispose: () => void (workspaceSettingFiles === files && (workspaceSettingFiles = undefined)) },
  );
}
