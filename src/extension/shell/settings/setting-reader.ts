// How one setting's value is read: the rules for machine-scoped and renamed settings, on a
// configuration seen only through ReadableConfiguration (vscode's WorkspaceConfiguration in
// the shell, a fake in tests).
//
// Machine-scoped settings (paths, servers, the snapshot disk budget) come from user settings
// only. VS Code itself leaves a workspace's value of a `machine` setting out of `get()`, but
// reading `inspect().globalValue` makes that a property of this code rather than of one VS Code
// version, and a workspace value that `inspect()` does show is reported (once, by the caller).
//
// A renamed setting whose old name is still set somewhere (workspace settings are never
// migrated) is read level by level, most specific first, each level's new name before its old
// one; otherwise as VS Code resolves the new name (its default when set nowhere).

import { isMachineScoped } from "./setting-schema";
import { isSetAnywhere, SETTING_RENAMES, valueAt, type SettingLevel, type SettingLevels } from "./settings-migration";

const MOST_SPECIFIC_FIRST: readonly SettingLevel[] = ["workspaceFolder", "workspace", "global"];

export interface ReadableConfiguration {
  get(name: string): unknown;
  inspect(name: string): SettingLevels | undefined;
}

/** The old name a setting had, if it was renamed. */
export function formerNameOf(name: string): string | undefined {
  return SETTING_RENAMES.find((r) => r.to === name)?.from;
}

export class SettingReader {
  constructor(
    private readonly config: ReadableConfiguration,
    /** A workspace or folder value of a machine-scoped setting was seen and ignored (its short name, without `statefulChat.`). */
    private readonly ignoredWorkspaceValue: (name: string) => void,
  ) {}

  value(name: string): unknown {
    const former = formerNameOf(name);
    if (isMachineScoped(name)) {
      const current = this.userValue(name);
      if (current !== undefined) return current;
      const old = former === undefined ? undefined : this.userValue(former);
      return old !== undefined ? old : this.config.inspect(name)?.defaultValue;
    }
    if (former !== undefined) {
      const old = this.config.inspect(former);
      // Level by level: workspace settings keep their old names (never migrated), so a workspace's
      // old name must still beat the user's new name, as it beat the user's old name before.
      if (isSetAnywhere(old)) {
        const current = this.config.inspect(name);
        for (const level of MOST_SPECIFIC_FIRST) {
          const value = valueAt(current, level) ?? valueAt(old, level);
          if (value !== undefined) return value;
        }
      }
    }
    return this.config.get(name);
  }

  /** The user (or remote) settings' value; a workspace's value is reported and ignored. */
  private userValue(name: string): unknown {
    const levels = this.config.inspect(name);
    if (levels?.workspaceValue !== undefined || levels?.workspaceFolderValue !== undefined) this.ignoredWorkspaceValue(name);
    return levels?.globalValue;
  }
}

/**
 * The machine-scoped settings (short names) a parsed settings file sets, whether as dotted keys
 * (`"statefulChat.modelPath"`) or nested (`"statefulChat": { "modelPath": … }`, which VS Code
 * merges into the same tree without checking the scope). Old names count too.
 */
export function machineSettingsSetIn(settings: unknown, prefix = "statefulChat."): string[] {
  const found = new Set<string>();
  const walk = (value: unknown, path: string): void => {
    if (path.startsWith(prefix) && isMachineScoped(path.slice(prefix.length))) found.add(path.slice(prefix.length));
    if (typeof value !== "object" || value === null || Array.isArray(value)) return;
    for (const [key, child] of Object.entries(value)) {
      if (!path && key.startsWith("[")) continue; // a language override: machine settings cannot be overridden per language
      walk(child, path ? `${path}.${key}` : key);
    }
  };
  walk(settings, "");
  return [...found];
}
