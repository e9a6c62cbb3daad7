// Every setting the shell reads is declared in package.json. A missing declaration is not a
// type error: readSettings() throws at run time ("no setting … in package.json") and no chat
// can load a model, as statefulChat.gpu once did. Read from the source, since readSettings
// itself needs VS Code.

import * as assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

const SHELL = join(__dirname, "..", "..", "src", "extension", "shell");
const READS = /\b(?:c\.get<[^>]*>|num|checkedSetting|checkedChoice<[^>]*>)\("([a-zA-Z.]+)"/g;

describe("settings the shell reads", () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as {
    contributes: { configuration: { properties: Record<string, unknown> } };
  };
  const declared = new Set(Object.keys(manifest.contributes.configuration.properties));
  const read = new Set<string>();
  for (const file of readdirSync(SHELL, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"))) {
    for (const match of readFileSync(join(SHELL, file), "utf8").matchAll(READS)) read.add(`statefulChat.${match[1]}`);
  }

  it("are found (the pattern still matches how settings.ts reads them)", () => {
    for (const name of ["statefulChat.modelPath", "statefulChat.contextSize", "statefulChat.gpu", "statefulChat.apply.maxFileBytes"]) {
      assert.ok(read.has(name), `${name} not seen as read`);
    }
  });

  it("are each declared in package.json", () => {
    assert.deepEqual([...read].filter((name) => !declared.has(name)), []);
  });
});
