// Apply in the real extension host: a whole file, an anchored fragment, a symbol-anchored
// fragment (TypeScript's own symbol provider), a new file, Apply All over two files; Keep,
// Undo and Ctrl+Z; a dirty document edited in memory only; every bad case refused with the
// file unchanged; from a chat's code block (the question's file chip, the block told, the next
// turn sending the diff, a file changed since the reply); fast apply with the real model,
// streamed into its proposal and cancelled.

import * as assert from "node:assert/strict";
import { chmodSync, existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "mocha";
import * as vscode from "vscode";
import type { ApplyOutcome } from "../../../src/extension/shell/apply/apply-controller";
import { api, closeAllPanels, newChat, turn, waitFor } from "./helpers";

const APPLY_SCHEME = "stateful-chat-apply";

function root(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, "the test workbench opens a folder");
  return folder.uri.fsPath;
}

const created: string[] = [];
function fixture(name: string, content: string | Buffer): { path: string; uri: vscode.Uri; content: string | Buffer } {
  const path = join(root(), name);
  writeFileSync(path, content);
  created.push(path);
  return { path, uri: vscode.Uri.file(path), content };
}

function apply(args: { code: string; path?: string; wholeFile?: boolean; fast?: boolean }): Promise<ApplyOutcome> {
  return Promise.resolve(vscode.commands.executeCommand<ApplyOutcome>("statefulChat.applyCodeBlock", args));
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
}

function diffTabs(): vscode.TabInputTextDiff[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.input)).filter((i): i is vscode.TabInputTextDiff => i instanceof vscode.TabInputTextDiff);
}

/** The file is exactly as it was: on disk, in its document (if open), nothing pending, no diff of it. */
async function assertUnchanged(file: { path: string; uri: vscode.Uri; content: string | Buffer }, what: string): Promise<void> {
  const testing = await api();
  assert.deepEqual(readFileSync(file.path), Buffer.from(file.content), `${what}: the file on disk`);
  const document = openDocument(file.uri);
  if (document && typeof file.content === "string") assert.equal(document.getText(), file.content, `${what}: its document`);
  assert.ok(!testing.apply.pending().some((p) => file.path.endsWith(p)), `${what}: nothing pending`);
  assert.ok(!diffTabs().some((d) => d.modified.toString() === file.uri.toString()), `${what}: no diff of it`);
}

/** Leaves no dirty document behind (closing one would ask to save, a dialog nobody answers). */
async function revertAll(): Promise<void> {
  const testing = await api();
  for (const label of testing.apply.pending()) await vscode.commands.executeCommand("statefulChat.undoApplied", vscode.Uri.joinPath(vscode.Uri.file(root()), ...label.split("/")));
  for (const document of vscode.workspace.textDocuments.filter((d) => d.isDirty && d.uri.scheme === "file")) {
    await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand("workbench.action.files.revert");
  }
  await vscode.commands.executeCommand("workbench.action.closeAllEditors");
}

const LIMITS = [
  "export const MAX = 10;",
  "",
  "export function limit(value: number): number {",
  "  if (value > MAX) {",
  "    return MAX;",
  "  }",
  "  return value;",
  "}",
  "",
  "export function double(value: number): number {",
  "  return value * 2;",
  "}",
  "",
].join("\n");

const LIMIT_FRAGMENT = ["export function limit(value: number): number {", "  return Math.min(value, MAX);", "}"].join("\n");
const LIMITS_AFTER_FRAGMENT = LIMITS.replace("  if (value > MAX) {\n    return MAX;\n  }\n  return value;", "  return Math.min(value, MAX);");

describe("Apply", () => {
  afterEach(async () => {
    const testing = await api();
    testing.apply.scriptFastApply(undefined);
    await revertAll();
    await closeAllPanels();
    for (const path of created.splice(0)) {
      try {
        chmodSync(path, 0o644);
      } catch {
        // already gone
      }
      rmSync(path, { force: true, recursive: true });
    }
  });

  it("a whole file: the file becomes the block, the diff opens, Keep saves it, Ctrl+Z restores it", async () => {
    const file = fixture("apply-whole.ts", LIMITS);
    const whole = LIMITS.replace("MAX = 10", "MAX = 20").replace("value * 2", "value + value");
    const outcome = await apply({ code: whole, path: "apply-whole.ts" });
    assert.equal(outcome.status, "applied", outcome.message);
    assert.equal(outcome.strategy, "whole");
    const document = openDocument(file.uri);
    assert.ok(document, "the document is open");
    assert.equal(document.getText(), whole);
    assert.equal(readFileSync(file.path, "utf8"), LIMITS, "nothing written before Keep");
    const diff = diffTabs().find((d) => d.modified.toString() === file.uri.toString());
    assert.ok(diff, "the diff editor shows original ↔ applied");
    assert.equal(diff.original.scheme, APPLY_SCHEME);
    const testing = await api();
    assert.equal(testing.apply.virtualText(diff.original.toString()), LIMITS, "its left side is the original");
    assert.deepEqual(testing.apply.pending(), ["apply-whole.ts"]);

    assert.equal(await vscode.commands.executeCommand("statefulChat.keepApplied"), true);
    assert.equal(readFileSync(file.path, "utf8"), whole, "Keep saved the file (it was saved before)");
    assert.deepEqual(testing.apply.pending(), []);
    assert.ok(!diffTabs().some((d) => d.modified.toString() === file.uri.toString()), "the diff closed");

    await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand("undo");
    assert.equal(document.getText(), LIMITS, "Ctrl+Z in the file restores it");
  });

  it("an anchored fragment replaces its region; Undo restores exactly what was there", async () => {
    const file = fixture("apply-anchored.ts", LIMITS);
    const outcome = await apply({ code: LIMIT_FRAGMENT, path: "apply-anchored.ts" });
    assert.equal(outcome.status, "applied", outcome.message);
    assert.equal(outcome.strategy, "anchored");
    const document = openDocument(file.uri)!;
    assert.equal(document.getText(), LIMITS_AFTER_FRAGMENT);
    assert.equal(await vscode.commands.executeCommand("statefulChat.undoApplied", file.uri), true);
    assert.equal(document.getText(), LIMITS);
    assert.equal(document.isDirty, false, "a file that was saved is saved again, as it was");
    await assertUnchanged(file, "after Undo");
  });

  it("Ctrl+Z while the change is pending restores the file and settles it as undone", async () => {
    const file = fixture("apply-ctrlz.ts", LIMITS);
    assert.equal((await apply({ code: LIMIT_FRAGMENT, path: "apply-ctrlz.ts" })).status, "applied");
    const document = openDocument(file.uri)!;
    await vscode.window.showTextDocument(document);
    await vscode.commands.executeCommand("undo");
    assert.equal(document.getText(), LIMITS);
    assert.equal(document.isDirty, false);
    const testing = await api();
    await waitFor("the change to settle", () => testing.apply.pending().length === 0, 10_000);
    await waitFor("its diff to close", () => !diffTabs().some((d) => d.modified.toString() === file.uri.toString()), 10_000);
    await assertUnchanged(file, "after Ctrl+Z");
  });

  it("a symbol-anchored fragment (its first line changed) replaces the symbol's range from the symbol provider", async () => {
    const file = fixture("apply-symbol.ts", LIMITS);
    const code = ["export function limit(value: number, max = MAX): number {", "  return Math.min(value, max);", "}"].join("\n");
    const outcome = await apply({ code, path: "apply-symbol.ts" });
    assert.equal(outcome.status, "applied", outcome.message);
    assert.equal(outcome.strategy, "symbol");
    assert.equal(openDocument(file.uri)!.getText(), LIMITS.replace(/export function limit[\s\S]*?\n}\n/, `${code}\n`));
  });

  it("a new file: created after a confirmation; declined, nothing is created", async () => {
    const testing = await api();
    const path = join(root(), "apply-new", "util.ts");
    created.push(path, join(root(), "apply-new"));
    testing.apply.answer({ create: false });
    const declined = await apply({ code: "export const answer = 42;", path: "apply-new/util.ts" });
    assert.equal(declined.status, "cancelled", declined.message);
    assert.ok(!existsSync(path), "declined: not created");
    testing.apply.answer({ create: true });
    const outcome = await apply({ code: "export const answer = 42;", path: "apply-new/util.ts" });
    assert.equal(outcome.status, "applied", outcome.message);
    assert.equal(outcome.created, true);
    assert.equal(openDocument(vscode.Uri.file(path))?.getText(), "export const answer = 42;\n");
    await vscode.commands.executeCommand("statefulChat.keepApplied", vscode.Uri.file(path));
    assert.equal(readFileSync(path, "utf8"), "export const answer = 42;\n");
  });

  it("Apply All: a reply's blocks for two files, each its own diff, kept and undone independently", async () => {
    const a = fixture("apply-all-a.ts", LIMITS);
    const b = fixture("apply-all-b.ts", "export const name = 'b';\n");
    const markdown = ["Two changes:", "", "```ts apply-all-a.ts", LIMIT_FRAGMENT, "```", "", "`apply-all-b.ts`", "```ts", "export const name = 'B';", "```"].join("\n");
    const outcomes = await vscode.commands.executeCommand<ApplyOutcome[]>("statefulChat.applyAll", { markdown });
    assert.deepEqual(outcomes.map((o) => [o.status, o.path]), [
      ["applied", "apply-all-a.ts"],
      ["applied", "apply-all-b.ts"],
    ]);
    assert.equal(outcomes[0]!.strategy, "anchored");
    assert.equal(openDocument(b.uri)?.getText(), "export const name = 'B';\n");
    const testing = await api();
    assert.deepEqual(testing.apply.pending().sort(), ["apply-all-a.ts", "apply-all-b.ts"]);
    assert.equal(diffTabs().filter((d) => d.original.scheme === APPLY_SCHEME).length, 2);
    await vscode.commands.executeCommand("statefulChat.undoApplied", b.uri);
    await vscode.commands.executeCommand("statefulChat.keepApplied", a.uri);
    assert.equal(readFileSync(a.path, "utf8"), LIMITS_AFTER_FRAGMENT);
    await assertUnchanged(b, "b undone");
  });

  it("a dirty document is edited in memory: its unsaved edits kept, nothing written, not even on Keep", async () => {
    const file = fixture("apply-dirty.ts", LIMITS);
    const document = await vscode.workspace.openTextDocument(file.uri);
    const editor = await vscode.window.showTextDocument(document);
    await editor.edit((e) => e.insert(new vscode.Position(0, 0), "// unsaved\n"));
    const dirty = document.getText();
    assert.equal(document.isDirty, true);
    const outcome = await apply({ code: LIMIT_FRAGMENT, path: "apply-dirty.ts" });
    assert.equal(outcome.status, "applied", outcome.message);
    assert.equal(document.getText(), `// unsaved\n${LIMITS_AFTER_FRAGMENT}`);
    await vscode.commands.executeCommand("statefulChat.keepApplied");
    assert.equal(readFileSync(file.path, "utf8"), LIMITS, "never written to disk");
    assert.equal(document.isDirty, true);
    // Undo of a second apply brings back the unsaved text exactly.
    assert.equal((await apply({ code: "export function double(value: number): number {\n  return value << 1;\n}", path: "apply-dirty.ts" })).status, "applied");
    await vscode.commands.executeCommand("statefulChat.undoApplied");
    assert.equal(document.getText(), `// unsaved\n${LIMITS_AFTER_FRAGMENT}`);
    assert.ok(dirty.length > 0);
    assert.equal(readFileSync(file.path, "utf8"), LIMITS);
  });

  it("bad cases are refused with a clear message and change nothing", async () => {
    const testing = await api();
    const cases: Array<{ what: string; file: ReturnType<typeof fixture>; code: string; path?: string; expect: RegExp; status?: string }> = [];
    const twice = fixture("apply-twice.ts", `${LIMITS}\nexport function limit(value: number): number {\n  return value;\n}\n`);
    cases.push({ what: "no unique anchor", file: twice, code: LIMIT_FRAGMENT, expect: /No unique place .* 2 regions/ });
    const readOnly = fixture("apply-readonly.ts", LIMITS);
    chmodSync(readOnly.path, 0o444);
    cases.push({ what: "read-only", file: readOnly, code: LIMIT_FRAGMENT, expect: /read-only/ });
    const binary = fixture("apply-binary.dat", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]));
    cases.push({ what: "binary", file: binary, code: "text", expect: /binary file/ });
    const latin1 = fixture("apply-latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    cases.push({ what: "not UTF-8", file: latin1, code: "café", expect: /not valid UTF-8/ });
    const outside = fixture("apply-outside-guard.ts", LIMITS);
    cases.push({ what: "outside (../)", file: outside, code: LIMIT_FRAGMENT, path: "../apply-outside.ts", expect: /outside the workspace/ });
    cases.push({ what: "outside (absolute)", file: outside, code: LIMIT_FRAGMENT, path: "/etc/hostname", expect: /outside the workspace/ });
    // A link inside the workspace to a file outside it: written through, it would change that file.
    const beyond = join(root(), "..", "apply-link-target.ts");
    writeFileSync(beyond, LIMITS);
    created.push(beyond);
    const link = join(root(), "apply-link.ts");
    symlinkSync(beyond, link);
    created.push(link);
    cases.push({ what: "a link leading outside", file: { path: link, uri: vscode.Uri.file(link), content: LIMITS }, code: LIMIT_FRAGMENT, path: "apply-link.ts", expect: /outside the workspace through a symbolic link/ });
    cases.push({ what: ".git", file: outside, code: "#!/bin/sh\necho hi", path: ".git/hooks/pre-commit", expect: /inside \.git\//, status: "error" });
    // .vscode asks first (tasks.json runs commands); no is no.
    testing.apply.answer({ sensitive: false });
    cases.push({ what: ".vscode, declined", file: outside, code: "{}", path: ".vscode/tasks.json", expect: /left as it is/, status: "cancelled" });
    for (const c of cases) {
      const outcome = await apply({ code: c.code, path: c.path ?? c.file.path.split("/").pop()! });
      assert.equal(outcome.status, c.status ?? "error", `${c.what}: ${outcome.message}`);
      assert.match(outcome.message, c.expect, c.what);
      await assertUnchanged(c.file, c.what);
    }
    assert.ok(!existsSync(join(root(), "..", "apply-outside.ts")));

    // Over the size budget.
    const config = vscode.workspace.getConfiguration("statefulChat");
    const big = fixture("apply-big.ts", `${LIMITS}${"// padding padding padding padding\n".repeat(60)}`);
    await config.update("apply.maxFileBytes", 1024, vscode.ConfigurationTarget.Global);
    try {
      const outcome = await apply({ code: LIMIT_FRAGMENT, path: "apply-big.ts" });
      assert.equal(outcome.status, "error");
      assert.match(outcome.message, /over the size budget .* 1 KB \(statefulChat\.apply\.maxFileBytes\)/);
      await assertUnchanged(big, "over the size budget");
    } finally {
      await config.update("apply.maxFileBytes", undefined, vscode.ConfigurationTarget.Global);
    }

    // Fast apply whose rewrite is cut off, or changes lines far from the change: shown as a diff, not applied.
    const fast = fixture("apply-fast-bad.ts", LIMITS);
    const code = "export function double(value: number): number {\n  return value * 4;\n}";
    const bad = [
      { what: "cut off", reply: "```ts\n" + LIMITS.split("\n").slice(0, 6).join("\n"), expect: /cut off/ },
      { what: "far", reply: "```ts\n" + LIMITS.replace("MAX = 10", "MAX = 99").replace("value * 2", "value * 4") + "```", expect: /far from the change/ },
    ];
    for (const b of bad) {
      testing.apply.scriptFastApply(b.reply);
      const outcome = await apply({ code, path: "apply-fast-bad.ts", fast: true });
      assert.equal(outcome.status, "proposed", `${b.what}: ${outcome.message}`);
      assert.match(outcome.message, b.expect);
      const proposal = diffTabs().find((d) => d.modified.scheme === APPLY_SCHEME && d.modified.path.includes("apply-fast-bad.ts"));
      assert.ok(proposal, `${b.what}: the proposal is shown as a diff`);
      // Its errors (a cut-off rewrite does not parse) are not the workspace's: no language server reads it, nothing reaches Problems.
      const proposalDocument = vscode.workspace.textDocuments.find((d) => d.uri.toString() === proposal.modified.toString());
      assert.equal(proposalDocument?.languageId, "plaintext", `${b.what}: the proposal is plain text`);
      await assertUnchanged(fast, `fast apply ${b.what}`);
      await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    }
  });

  it("from a chat's code block: the question's file, the block told, the next turn gets the diff; a file changed since the reply is refused", async () => {
    const testing = await api();
    // Long enough that the applied change is cheaper to send as a diff than in full.
    const padding = Array.from({ length: 16 }, (_, i) => `export const area${i} = (w: number, h: number): number => w * h * ${i + 1};`).join("\n");
    const file = fixture("apply-chat.ts", `${LIMITS}${padding}\n`);
    const BASE = `${LIMITS}${padding}\n`;
    const AFTER = BASE.replace(LIMITS, LIMITS_AFTER_FRAGMENT);
    await vscode.window.showTextDocument(file.uri);
    const panel = await newChat();
    await turn(panel, "Say OK.");
    const user = panel.transcript.find((e) => e.role === "user")!;
    assert.ok(user.chips?.some((c) => c.label === "apply-chat.ts" && c.kind === "file"), JSON.stringify(user.chips));
    const reply = panel.transcript.find((e) => e.role === "assistant")!;

    // A block the reply holds is matched by its code; this one is not in it, so it goes alone, to the question's file.
    panel.receive({ type: "applyCode", entryId: reply.id, block: 0, code: LIMIT_FRAGMENT });
    const applied = await waitFor("the block's state", () => {
      const state = testing.apply.blockState(panel.id, reply.id, 0);
      return state && state.state !== "working" ? state : undefined;
    });
    assert.equal(applied.state, "applied", applied.message);
    assert.match(applied.message, /Applied to apply-chat\.ts \(lines 3–8/);
    await vscode.commands.executeCommand("statefulChat.keepApplied", file.uri);
    await waitFor("the block to say kept", () => testing.apply.blockState(panel.id, reply.id, 0)?.state === "kept", 10_000);
    // Ctrl+Z after Keep brings the text back: the block says so instead of "Kept"; the redo keeps it again.
    await vscode.window.showTextDocument(file.uri);
    await vscode.commands.executeCommand("undo");
    await waitFor("the block to say reverted", () => testing.apply.blockState(panel.id, reply.id, 0)?.state === "reverted", 10_000);
    assert.equal(openDocument(file.uri)!.getText(), BASE);
    await vscode.commands.executeCommand("redo");
    await waitFor("the block to say kept again", () => testing.apply.blockState(panel.id, reply.id, 0)?.state === "kept", 10_000);
    assert.equal(openDocument(file.uri)!.getText(), AFTER);

    await turn(panel, "And now?");
    const second = panel.transcript.filter((e) => e.role === "user")[1]!;
    assert.ok(second.chips?.some((c) => c.label === "apply-chat.ts" && c.kind === "diff"), `the applied change goes as a diff: ${JSON.stringify(second.chips)}`);

    // The file changes under the reply: the block's anchors matched what the model saw, not what is there now.
    const changed = AFTER.replace("export function double(value: number): number {", "export function twice(value: number): number {");
    const changedFile = { ...file, content: changed };
    writeFileSync(file.path, changed);
    await waitFor("the document to reload", () => openDocument(file.uri)?.getText() === changed, 10_000);
    const doubleBlock = "export function double(value: number): number {\n  return value + value;\n}";
    panel.receive({ type: "applyCode", entryId: reply.id, block: 1, code: doubleBlock });
    const refused = await waitFor("the refusal", () => {
      const state = testing.apply.blockState(panel.id, reply.id, 1);
      return state && state.state !== "working" ? state : undefined;
    });
    assert.equal(refused.state, "error");
    assert.match(refused.message, /apply-chat\.ts changed since the reply/);
    assert.equal(refused.offerFast, true, "fast apply is offered");
    await assertUnchanged(changedFile, "changed since the reply");

    // Taking the offer: fast apply (its reply scripted here; the next test runs the model).
    testing.apply.scriptFastApply("```ts\n" + changed.replace("export function twice(value: number): number {\n  return value * 2;", "export function twice(value: number): number {\n  return value + value;") + "```");
    panel.receive({ type: "applyCode", entryId: reply.id, block: 1, code: doubleBlock, fast: true });
    const merged = await waitFor("fast apply", () => {
      const state = testing.apply.blockState(panel.id, reply.id, 1);
      return state && state.state !== "working" && state.state !== "error" ? state : undefined;
    });
    assert.equal(merged.state, "applied", merged.message);
    assert.ok(openDocument(file.uri)!.getText().includes("return value + value;"));
  });

  it("fast apply with the chat's model streams into its proposal; a cancel changes nothing", async () => {
    const testing = await api();
    // Long enough that the rewrite takes a while to write (the cancel lands in the middle of it).
    const file = fixture("apply-model.ts", LIMITS + Array.from({ length: 20 }, (_, i) => `export const limit${i} = ${i * 10};`).join("\n") + "\n");
    await vscode.window.showTextDocument(file.uri);
    const panel = await newChat();
    await turn(panel, "Say OK.");
    const reply = panel.transcript.find((e) => e.role === "assistant")!;
    const code = "export function clamp(value: number, low: number, high: number): number {\n  return Math.max(low, Math.min(high, value));\n}";
    const stateOf = () => testing.apply.blockState(panel.id, reply.id, 0);

    // Cancel once the proposal has streamed some of the rewrite.
    let streamed = 0;
    const watch = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.uri.scheme === APPLY_SCHEME && e.document.uri.path.startsWith("/proposal/")) streamed++;
    });
    try {
      panel.receive({ type: "applyCode", entryId: reply.id, block: 0, code, fast: true });
      await waitFor("the rewrite to stream into the proposal", () => streamed > 0 || (stateOf() && stateOf()!.state !== "working"), 120_000);
      panel.receive({ type: "cancelApply", entryId: reply.id, block: 0 });
      const stopped = await waitFor("the cancel", () => (stateOf()?.state !== "working" ? stateOf() : undefined));
      assert.ok(streamed > 0, "the proposal grew while the model wrote");
      assert.equal(stopped.state, "cancelled", stopped.message);
      await assertUnchanged(file, "cancelled fast apply");
      assert.ok(!diffTabs().some((d) => d.modified.scheme === APPLY_SCHEME), "the proposal closed");

      // The whole run: applied (then undone), or a proposal shown and not applied, by the model's rewrite.
      panel.receive({ type: "applyCode", entryId: reply.id, block: 0, code, fast: true });
      const done = await waitFor("fast apply", () => (stateOf()?.state !== "working" ? stateOf() : undefined), 4 * 60_000);
      assert.ok(["applied", "proposed", "unchanged"].includes(done.state), `${done.state}: ${done.message}`);
      if (done.state === "applied") {
        await vscode.commands.executeCommand("statefulChat.undoApplied", file.uri);
        await assertUnchanged(file, "fast apply undone");
      } else await assertUnchanged(file, `fast apply ${done.state}`);
    } finally {
      watch.dispose();
    }
  });
});
