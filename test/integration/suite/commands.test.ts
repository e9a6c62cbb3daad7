// Every command the manifest contributes is registered once the extension activates; its
// default keys have `when` clauses and reach registered commands; it activates on our own
// views, panels and model provider, never on startup.

import * as assert from "node:assert/strict";
import { describe, it } from "mocha";
import * as vscode from "vscode";
import { extension } from "./helpers";

interface Manifest {
  readonly activationEvents: readonly string[];
  readonly contributes: {
    readonly commands: ReadonlyArray<{ readonly command: string }>;
    readonly keybindings: ReadonlyArray<{ readonly command: string; readonly key: string; readonly when?: string }>;
  };
}

const manifest = () => extension().packageJSON as Manifest;

describe("commands", () => {
  it("registers every statefulChat.* command from package.json", async () => {
    const ext = extension();
    await ext.activate();
    const declared = manifest().contributes.commands.map((c) => c.command);
    assert.ok(declared.length > 0);
    assert.ok(declared.every((id) => id.startsWith("statefulChat.")));
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(declared.filter((id) => !registered.has(id)), []);
  });

  it("every default key has a when clause and runs a registered command", async () => {
    await extension().activate();
    const registered = new Set(await vscode.commands.getCommands(true));
    const bindings = manifest().contributes.keybindings;
    assert.ok(bindings.length > 0);
    assert.deepEqual(bindings.filter((b) => !b.when?.trim()).map((b) => b.command), [], "bindings without a when clause");
    assert.deepEqual(bindings.filter((b) => !registered.has(b.command)).map((b) => b.command), []);
    assert.ok(!bindings.some((b) => b.key === "ctrl+alt+n"), "Ctrl+Alt+N is Code Runner's Run Code");
  });

  it("activates on the chat view, chat panels and the model provider, not on startup", () => {
    const events = manifest().activationEvents;
    assert.ok(!events.includes("*"), events.join(", "));
    for (const needed of ["onView:statefulChat.chatView", "onWebviewPanel:statefulChat.chat", "onLanguageModelChatProvider:stateful-chat"]) assert.ok(events.includes(needed), needed);
  });
});
