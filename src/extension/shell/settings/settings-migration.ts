// Renamed settings: the old names are a public contract, so they keep working. A value set
// under an old name in user settings is moved once to the new name. The workspace's and its
// folders' settings files are the project's, shared through its repository: they are never
// rewritten, only reported (the user renames them when they like); and in Restricted Mode
// nothing is migrated, not even user settings, until the workspace is trusted. Until a value
// is moved (a read-only settings file, a value written later by an older version or Settings
// Sync, any workspace value), reads fall back to it level by level (setting-reader.ts). Pure:
// it sees the configuration only through MigratableConfiguration, so it is tested with a fake one.

import { isMachineScoped } from "./setting-schema";

/** Old name → new name (short names, without `statefulChat.`); package.json declares each old name deprecated. */
export const SETTING_RENAMES = [
  // Units spelled out last, like contextSize's tokens, apply.maxFileBytes, chatProvider.idleMinutes.
  { from: "maxNewTokens", to: "reply.maxTokens" },
  { from: "kvSnapshots.maxDiskMB", to: "kvSnapshots.maxDiskMegabytes" },
  // Internals a user rarely needs, under one group.
  { from: "threads", to: "advanced.threads" },
  { from: "historyRendering", to: "advanced.historyRendering" },
] as const;

export type SettingRename = (typeof SETTING_RENAMES)[number];

/** Where a value is set; vscode.ConfigurationTarget's Global, Workspace, WorkspaceFolder. */
export type SettingLevel = "global" | "workspace" | "workspaceFolder";

/** The part of vscode's `inspect()` result used here. */
export interface SettingLevels {
  readonly defaultValue?: unknown;
  readonly globalValue?: unknown;
  readonly workspaceValue?: unknown;
  readonly workspaceFolderValue?: unknown;
}

export interface MigratableConfiguration {
  inspect(name: string): SettingLevels | undefined;
  update(name: string, value: unknown, level: SettingLevel): PromiseLike<void>;
}

/** One configuration and the levels to migrate in it (a workspace folder's configuration: "workspaceFolder"). */
export interface MigrationScope {
  readonly config: MigratableConfiguration;
  readonly levels: readonly SettingLevel[];
}

export interface MigrationStep {
  readonly from: string;
  readonly to: string;
  readonly level: SettingLevel;
  /**
   * moved: the value now lives under the new name; dropped: the new name was already set at that
   * level (it wins), so the old value was removed; left: a workspace or folder value, not
   * written (still read); kept: a machine-scoped setting's workspace value, left alone (ignored
   * either way); failed: the settings file could not be written (the old value is still read).
   */
  readonly outcome: "moved" | "dropped" | "left" | "kept" | "failed";
  readonly value: unknown;
  readonly error?: string;
}

const VALUE_OF: Readonly<Record<SettingLevel, keyof SettingLevels>> = {
  global: "globalValue",
  workspace: "workspaceValue",
  workspaceFolder: "workspaceFolderValue",
};

export function valueAt(levels: SettingLevels | undefined, level: SettingLevel): unknown {
  return levels?.[VALUE_OF[level]];
}

/** Whether a value is set at any level (not just the default). */
export function isSetAnywhere(levels: SettingLevels | undefined): boolean {
  return (Object.keys(VALUE_OF) as SettingLevel[]).some((level) => valueAt(levels, level) !== undefined);
}

export interface MigrationWindow {
  /** Whether the workspace is trusted; in Restricted Mode nothing is migrated (run again when trust is granted). */
  readonly trusted: boolean;
}

/**
 * Moves every value set under an old name in user settings to its new name, and reports the
 * workspace's and folders' values without writing them; returns one step per value found.
 */
export async function migrateRenamedSettings(scopes: readonly MigrationScope[], window: MigrationWindow, renames: readonly SettingRename[] = SETTING_RENAMES): Promise<MigrationStep[]> {
  const steps: MigrationStep[] = [];
  // A workspace opened in Restricted Mode must not make the extension write anything, even user settings.
  if (!window.trusted) return steps;
  for (const { config, levels } of scopes) {
    for (const { from, to } of renames) {
      const old = config.inspect(from);
      const current = config.inspect(to);
      for (const level of levels) {
        const value = valueAt(old, level);
        if (value === undefined) continue;
        // A machine-scoped setting is read from user settings only: a workspace's value stays where it is, ignored.
        if (level !== "global" && isMachineScoped(to)) {
          steps.push({ from, to, level, outcome: "kept", value });
          continue;
        }
        // The workspace's settings belong to its project (and its repository): reported, never rewritten.
        if (level !== "global") {
          steps.push({ from, to, level, outcome: "left", value });
          continue;
        }
        const newSet = valueAt(current, level) !== undefined;
        try {
          if (!newSet) await config.update(to, value, level);
          await config.update(from, undefined, level);
          steps.push({ from, to, level, outcome: newSet ? "dropped" : "moved", value });
        } catch (error) {
          steps.push({ from, to, level, outcome: "failed", value, error: error instanceof Error ? error.message : String(error) });
        }
      }
    }
  }
  return steps;
}

/** One line per step, for the log. */
export function describeMigrationStep(step: MigrationStep, prefix = "statefulChat."): string {
  const where = { global: "user settings", workspace: "workspace settings", workspaceFolder: "folder settings" }[step.level];
  const names = `${prefix}${step.from} → ${prefix}${step.to}`;
  switch (step.outcome) {
    case "moved":
      return `Settings: ${names}: moved ${JSON.stringify(step.value)} in ${where}.`;
    case "dropped":
      return `Settings: ${names}: ${where} already set the new name, which wins; removed the old value ${JSON.stringify(step.value)}.`;
    case "left":
      return `Settings: ${names}: ${where} still use the old name (value ${JSON.stringify(step.value)}), which is still read; rename it there when you like (workspace settings are not changed for you).`;
    case "kept":
      return `Settings: ${names}: ${where} value ${JSON.stringify(step.value)} left alone (the setting is read from user settings only).`;
    case "failed":
      return `Settings: ${names}: could not move the value in ${where} (${step.error}); the old name is still read.`;
  }
}
