// README.md's settings table, generated from package.json's contributes.configuration so the
// two cannot drift: every setting with its default, scope and description (choices included),
// then the renamed settings and their old names. Pure: manifest in, markdown out.

export const TABLE_BEGIN = "<!-- settings-table:begin (generated from package.json by `npm run readme:settings`; edit package.json, not this table) -->";
export const TABLE_END = "<!-- settings-table:end -->";

interface SettingSchema {
  readonly type?: string | readonly string[];
  readonly default?: unknown;
  readonly scope?: string;
  readonly order?: number;
  readonly enum?: readonly unknown[];
  readonly enumDescriptions?: readonly string[];
  readonly markdownDescription?: string;
  readonly description?: string;
  readonly markdownDeprecationMessage?: string;
  readonly deprecationMessage?: string;
}

export interface ManifestWithSettings {
  readonly contributes: { readonly configuration: { readonly properties: Readonly<Record<string, SettingSchema>> } };
}

/** Settings-editor markdown to README markdown: `#statefulChat.x#` links become code, one line, pipes escaped. */
function cell(text: string): string {
  return text
    .replace(/`#([\w.]+)#`/g, "`$1`")
    .replace(/#([\w.]+)#/g, "`$1`")
    .replace(/\s*\n\s*/g, " ")
    .replace(/\|/g, "\\|")
    .trim();
}

function describe(schema: SettingSchema): string {
  const text = schema.markdownDescription ?? schema.description ?? "";
  if (!schema.enum) return cell(text);
  const choices = schema.enum.map((value, i) => {
    const what = schema.enumDescriptions?.[i];
    return what ? `\`${String(value)}\`: ${what.replace(/\.$/, "")}` : `\`${String(value)}\``;
  });
  return cell(`${text} Choices: ${choices.join("; ")}.`);
}

function defaultOf(schema: SettingSchema): string {
  return schema.default === undefined ? "" : cell(`\`${JSON.stringify(schema.default)}\``);
}

const isDeprecated = (schema: SettingSchema) => schema.markdownDeprecationMessage !== undefined || schema.deprecationMessage !== undefined;

/** The lines between the markers (without them). */
export function settingsTable(manifest: ManifestWithSettings): string {
  const entries = Object.entries(manifest.contributes.configuration.properties);
  const current = entries
    .filter(([, schema]) => !isDeprecated(schema))
    .sort(([a, x], [b, y]) => (x.order ?? Number.MAX_SAFE_INTEGER) - (y.order ?? Number.MAX_SAFE_INTEGER) || (a < b ? -1 : a > b ? 1 : 0));
  const lines = [
    "| Setting | Default | Scope | What it does |",
    "|---|---|---|---|",
    ...current.map(([id, schema]) => `| \`${id}\` | ${defaultOf(schema)} | ${schema.scope ?? "window"} | ${describe(schema)} |`),
  ];
  const renamed = entries.filter(([, schema]) => isDeprecated(schema));
  if (renamed.length > 0) {
    lines.push(
      "",
      "Renamed settings: the old names are still read, and a value set under one in user settings is moved to the new name when the extension starts (in a trusted workspace); workspace settings are never rewritten, only reported.",
      "",
      "| Old name | Now |",
      "|---|---|",
      ...renamed.map(([id, schema]) => `| \`${id}\` | ${cell(schema.markdownDeprecationMessage ?? schema.deprecationMessage ?? "")} |`),
    );
  }
  return lines.join("\n");
}

/** README text with the table between the markers replaced; throws when the markers are missing. */
export function withSettingsTable(readme: string, manifest: ManifestWithSettings): string {
  const begin = readme.indexOf(TABLE_BEGIN);
  const end = readme.indexOf(TABLE_END);
  if (begin < 0 || end < begin) throw new Error(`README.md has no ${TABLE_BEGIN} … ${TABLE_END} markers`);
  return `${readme.slice(0, begin + TABLE_BEGIN.length)}\n${settingsTable(manifest)}\n${readme.slice(end)}`;
}
