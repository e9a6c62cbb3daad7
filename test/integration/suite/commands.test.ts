// Every command the manifest contributes is registered once the extension activates.

import * as assert from "node:assert/strict";
import { describe, it } from "mocha";
import * as vscode from "vscode";
import { extension } from "./helpers";

interface ManifestCommand {
  readonly command: string;
}

describe("commands", () => {
  it("registers every statefulChat.* command from package.json", async () => {
    const ext = extension();
    await ext.activate();
    const declared = (ext.packageJSON as { contributes: { commands: ManifestCommand[] } }).contributes.commands.map((c) => c.command);
    assert.ok(declared.length > 0);
    assert.ok(declared.every((id) => id.startsWith("statefulChat.")));
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(declared.filter((id) => !registered.has(id)), []);
  });
});
