// Mentions and context commands in the real extension host: Add File to Chat and Ask About
// Selection attach what they say; mentions of a secrets file, a binary file and a file
// deleted before sending are refused with their reasons on the sent message's chips.

import * as assert from "node:assert/strict";
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "mocha";
import * as vscode from "vscode";
import { api, closeAllPanels, newChat, turn, waitFor } from "./helpers";

function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, "the test workbench opens a folder");
  return folder.uri.fsPath;
}

describe("mentions and context commands", () => {
  afterEach(closeAllPanels);

  it("refuses secrets, binary and deleted files with a reason; Add File to Chat attaches a file", async () => {
    const root = workspaceRoot();
    writeFileSync(join(root, ".env"), "TOKEN=abc\n");
    writeFileSync(join(root, "data.bin"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1]));
    writeFileSync(join(root, "gone.ts"), "export const gone = true;\n");
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    const panel = await newChat();
    for (const value of [".env", "data.bin", "gone.ts"]) panel.receive({ type: "addMention", value });
    rmSync(join(root, "gone.ts"));
    await vscode.commands.executeCommand("statefulChat.addFileToChat", vscode.Uri.file(join(root, "hello.ts")));
    await turn(panel, "What do these files hold?");
    const chips = panel.transcript.find((e) => e.role === "user")?.chips ?? [];
    const byLabel = new Map(chips.map((c) => [c.label, c]));
    assert.deepEqual(byLabel.get(".env"), { label: ".env", kind: "skipped", detail: "looks like a secrets file" });
    assert.deepEqual(byLabel.get("data.bin"), { label: "data.bin", kind: "skipped", detail: "binary file" });
    assert.deepEqual(byLabel.get("gone.ts"), { label: "gone.ts", kind: "skipped", detail: "file no longer exists" });
    assert.equal(byLabel.get("hello.ts")?.kind, "file", JSON.stringify(chips));
    rmSync(join(root, ".env"));
    rmSync(join(root, "data.bin"));
  });

  it("Ask About Selection attaches the selection to the side bar's chat; the editor keeps the focus", async () => {
    const root = workspaceRoot();
    const testing = await api();
    // A chat tab hidden behind the editor is not where the user looks: the side bar's chat gets it.
    await newChat();
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(join(root, "shapes.ts")));
    editor.selection = new vscode.Selection(1, 0, 3, 0);
    await vscode.commands.executeCommand("statefulChat.askAboutSelection");
    const chat = await waitFor("the side bar's chat", () => testing.viewChat());
    try {
      assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, editor.document.uri.fsPath, "the editor is still the active one");
      assert.equal(testing.panels()[0]?.transcript.length, 0, "the hidden tab's chat got nothing");
      // The selection is kept even when the editor's selection moves on before sending.
      editor.selection = new vscode.Selection(0, 0, 0, 0);
      await turn(chat, "Explain the selection.");
      const chips = chat.transcript.filter((e) => e.role === "user").at(-1)?.chips ?? [];
      assert.ok(
        chips.some((c) => c.kind === "selection" && c.label === "Selection in shapes.ts (lines 2-4)"),
        JSON.stringify(chips),
      );
    } finally {
      // The side bar's chat outlives the editors: close it, so no later suite finds its engine loaded.
      chat.close();
      await waitFor("the side bar's chat closed", () => testing.viewChat() === undefined, 30_000);
    }
  });

  it("a pinned file is re-checked every turn (changes as diffs) until unpinned; @workspace and @problems attach", async () => {
    const root = workspaceRoot();
    const shapes = join(root, "shapes.ts");
    const original = readFileSync(shapes, "utf8");
    try {
      const panel = await newChat();
      panel.receive({ type: "setActiveFile", on: false });
      panel.receive({ type: "pinChip", id: "file:shapes.ts", pinned: true });
      const chipsOf = (n: number) => panel.transcript.filter((e) => e.role === "user")[n]?.chips ?? [];
      await turn(panel, "Remember this file.");
      assert.ok(chipsOf(0).some((c) => c.label === "shapes.ts" && c.kind === "file"), JSON.stringify(chipsOf(0)));
      await turn(panel, "Anything else?");
      assert.ok(!chipsOf(1).some((c) => c.label === "shapes.ts"), "unchanged: not sent again");
      appendFileSync(shapes, "export const pinnedEdit = 1;\n");
      await turn(panel, "And now?");
      assert.ok(chipsOf(2).some((c) => c.label === "shapes.ts" && c.kind === "diff"), JSON.stringify(chipsOf(2)));
      panel.receive({ type: "removeChip", id: "file:shapes.ts" });
      appendFileSync(shapes, "export const afterUnpin = 2;\n");
      panel.receive({ type: "addMention", value: "workspace" });
      panel.receive({ type: "addMention", value: "problems" });
      await turn(panel, "What is in the workspace?");
      const last = chipsOf(3);
      assert.ok(!last.some((c) => c.label === "shapes.ts"), `unpinned: not re-checked ${JSON.stringify(last)}`);
      assert.ok(last.some((c) => c.kind === "outline" && c.label === "Workspace outline"), JSON.stringify(last));
      assert.ok(last.some((c) => c.kind === "diagnostics" && c.label === "Problems in the workspace"), JSON.stringify(last));
    } finally {
      writeFileSync(shapes, original);
    }
  });
});
