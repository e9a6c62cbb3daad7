// A test double of vscode's WorkspaceConfiguration for `statefulChat.*` (short names): values per
// level, defaults from package.json, and a log of writes. Like VS Code, `get()` returns the
// most specific level's value (folder, then workspace, then user, then the default) and does
// not filter by scope; the code under test has to do that itself.

import manifest from "../../package.json";
import type { MigratableConfiguration, SettingLevel, SettingLevels } from "../../src/extension/shell/settings/settings-migration";
import type { ReadableConfiguration } from "../../src/extension/shell/settings/setting-reader";

const PROPERTIES = manifest.contributes.configuration.properties as Record<string, { default?: unknown }>;

export class FakeConfiguration implements MigratableConfiguration, ReadableConfiguration {
  readonly values = new Map<string, Partial<Record<SettingLevel, unknown>>>();
  readonly writes: Array<{ name: string; value: unknown; level: SettingLevel }> = [];
  /** Levels whose settings file cannot be written (update() rejects). */
  readonly readOnly = new Set<SettingLevel>();

  set(name: string, level: SettingLevel, value: unknown): this {
    this.values.set(name, { ...this.values.get(name), [level]: value });
    return this;
  }

  at(name: string, level: SettingLevel): unknown {
    return this.values.get(name)?.[level];
  }

  inspect(name: string): SettingLevels {
    const v = this.values.get(name) ?? {};
    return { defaultValue: PROPERTIES[`statefulChat.${name}`]?.default, globalValue: v.global, workspaceValue: v.workspace, workspaceFolderValue: v.workspaceFolder };
  }

  get(name: string): unknown {
    const i = this.inspect(name);
    return i.workspaceFolderValue ?? i.workspaceValue ?? i.globalValue ?? i.defaultValue;
  }

  async update(name: string, value: unknown, level: SettingLevel): Promise<void> {
    if (this.readOnly.has(level)) throw new Error(`Unable to write into ${level} settings`);
    this.writes.push({ name, value, level });
    const v = { ...this.values.get(name) };
    if (value === undefined) delete v[level];
    else v[level] = value;
    this.values.set(name, v);
  }
}
