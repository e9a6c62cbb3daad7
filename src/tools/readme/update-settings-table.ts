// `npm run readme:settings`: rewrites README.md's settings table from package.json
// (test/unit/readme-settings.test.ts fails while they differ).

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ManifestWithSettings, withSettingsTable } from "./settings-table";

const root = join(__dirname, "..", "..", "..");
const readmePath = join(root, "README.md");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as ManifestWithSettings;
const before = readFileSync(readmePath, "utf8");
const after = withSettingsTable(before, manifest);
if (after === before) console.log("README.md's settings table is up to date.");
else {
  writeFileSync(readmePath, after);
  console.log("README.md's settings table rewritten from package.json.");
}
