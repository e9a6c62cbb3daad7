// README.md's settings table is what `npm run readme:settings` generates from package.json, so
// a setting added, renamed or redescribed in package.json fails here until the README follows.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import { type ManifestWithSettings, settingsTable, TABLE_BEGIN, TABLE_END, withSettingsTable } from "../../src/tools/readme/settings-table";

const root = join(__dirname, "..", "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as ManifestWithSettings;
const readme = readFileSync(join(root, "README.md"), "utf8");

it("README.md's settings table equals the one generated from package.json", () => {
  const begin = readme.indexOf(TABLE_BEGIN);
  const end = readme.indexOf(TABLE_END);
  assert.ok(begin >= 0 && end > begin, "README.md has the settings-table markers");
  assert.equal(readme.slice(begin + TABLE_BEGIN.length, end).trim(), settingsTable(manifest), "run `npm run readme:settings`");
  assert.equal(withSettingsTable(readme, manifest), readme);
});

it("lists every setting package.json declares, once, and each renamed one under its old name", () => {
  const table = settingsTable(manifest);
  for (const id of Object.keys(manifest.contributes.configuration.properties)) {
    assert.equal(table.split(`| \`${id}\` |`).length - 1, 1, id);
  }
});

it("turns settings-editor links into code and keeps a cell on one line", () => {
  const table = settingsTable({
    contributes: {
      configuration: {
        properties: {
          "x.a": { type: "string", default: "", enum: ["p", "q"], enumDescriptions: ["P.", "Q | R."], markdownDescription: "See `#x.b#`\nor #x.b#." },
          "x.old": { type: "string", markdownDeprecationMessage: "Renamed to `#x.a#`." },
        },
      },
    },
  });
  assert.equal(
    table,
    [
      "| Setting | Default | Scope | What it does |",
      "|---|---|---|---|",
      "| `x.a` | `\"\"` | window | See `x.b` or `x.b`. Choices: `p`: P; `q`: Q \\| R. |",
      "",
      "Renamed settings: the old names are still read, and a value set under one in user settings is moved to the new name when the extension starts (in a trusted workspace); workspace settings are never rewritten, only reported.",
      "",
      "| Old name | Now |",
      "|---|---|",
      "| `x.old` | Renamed to `x.a`. |",
    ].join("\n"),
  );
});
