// Settings checked against their own schema in package.json, the one source of their types,
// ranges, choices and defaults. VS Code enforces the schema only in the Settings editor; a
// hand-edited settings.json may hold anything. A number out of range is clamped to it, a value
// of the wrong type or not among the choices falls back to the default, and each correction
// is reported (the shell warns once, naming the setting) instead of reaching the engine, which
// would refuse it.

import manifest from "../../../../package.json";

interface PropertySchema {
  readonly type?: string | readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly enum?: readonly unknown[];
  readonly default?: unknown;
  readonly scope?: string;
  readonly markdownDeprecationMessage?: string;
}

const PROPERTIES = manifest.contributes.configuration.properties as Readonly<Record<string, PropertySchema>>;

export interface SettingProblem {
  /** The full setting id, e.g. `statefulChat.temperature`. */
  readonly setting: string;
  readonly value: unknown;
  readonly used: unknown;
  readonly reason: string;
}

export const SETTINGS_PREFIX = "statefulChat.";

function schemaOf(name: string): PropertySchema {
  const schema = PROPERTIES[SETTINGS_PREFIX + name];
  if (!schema) throw new Error(`no setting ${SETTINGS_PREFIX + name} in package.json`);
  return schema;
}

/**
 * Settings (short names, without `statefulChat.`) that name something on this machine (a model
 * file, a server, a disk budget): package.json gives them `machine` scope, so only user (or
 * remote) settings may set them; the shell ignores a workspace's value, with a notice.
 */
export const MACHINE_SCOPED_SETTINGS: readonly string[] = Object.entries(PROPERTIES)
  .filter(([, schema]) => schema.scope === "machine")
  .map(([id]) => id.slice(SETTINGS_PREFIX.length));

export function isMachineScoped(name: string): boolean {
  return MACHINE_SCOPED_SETTINGS.includes(name);
}

/** The schema's default for a setting (package.json). */
export function settingDefault<T>(name: string): T {
  return schemaOf(name).default as T;
}

/** A number setting: wrong type → default; not an integer where one is required → rounded; out of range → clamped. */
export function checkedNumber(name: string, value: unknown, problems: SettingProblem[]): number {
  const schema = schemaOf(name);
  const fallback = schema.default as number;
  if (value === undefined || value === null) return fallback;
  const setting = SETTINGS_PREFIX + name;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    problems.push({ setting, value, used: fallback, reason: "is not a number" });
    return fallback;
  }
  let used = schema.type === "integer" ? Math.round(value) : value;
  if (schema.minimum !== undefined && used < schema.minimum) used = schema.minimum;
  if (schema.maximum !== undefined && used > schema.maximum) used = schema.maximum;
  if (used !== value) {
    const range = `${schema.minimum ?? "−∞"}–${schema.maximum ?? "∞"}${schema.type === "integer" ? ", whole numbers" : ""}`;
    problems.push({ setting, value, used, reason: `is outside ${range}` });
  }
  return used;
}

/** A choice setting (an `enum` in the schema, and the code's own list when it has a guard): anything else → the default. */
export function checkedChoice<T extends string>(name: string, value: unknown, problems: SettingProblem[], isChoice: (v: unknown) => boolean = () => true): T {
  const schema = schemaOf(name);
  const fallback = schema.default as T;
  if (value === undefined || value === null) return fallback;
  if ((schema.enum ?? []).includes(value) && isChoice(value)) return value as T;
  problems.push({ setting: SETTINGS_PREFIX + name, value, used: fallback, reason: `is not one of ${(schema.enum ?? []).join(", ")}` });
  return fallback;
}

/**
 * A setting that is `auto` or a whole number (a number, or digits in a string) of at least the
 * schema's minimum: a smaller number is raised to it, a fraction rounded; anything else → `auto`.
 */
export function checkedAutoOrCount(name: string, value: unknown, problems: SettingProblem[]): "auto" | number {
  const schema = schemaOf(name);
  if (value === undefined || value === null || value === "auto") return "auto";
  const setting = SETTINGS_PREFIX + name;
  const n = typeof value === "string" && /^[0-9]+$/.test(value.trim()) ? Number(value.trim()) : value;
  if (typeof n !== "number" || !Number.isFinite(n)) {
    problems.push({ setting, value, used: "auto", reason: "is neither auto nor a number" });
    return "auto";
  }
  const minimum = schema.minimum ?? 0;
  const used = Math.max(minimum, Math.round(n));
  if (used !== n) problems.push({ setting, value, used, reason: `is not auto or a whole number >= ${minimum}` });
  return used;
}

export function describeProblem(problem: SettingProblem): string {
  return `${problem.setting} ${JSON.stringify(problem.value)} ${problem.reason}; using ${JSON.stringify(problem.used)}.`;
}
