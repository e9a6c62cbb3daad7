// KV snapshots in the real extension host: a 10-turn chat closed and revived by id (as the
// serializer revives it after a window reload, with a fresh engine process) resumes from its
// snapshot. Its first new turn prefills only the new tokens (cached == the position before
// the reload), says "restored from snapshot", and answers as a chat never reloaded (greedy).
// Reset Conversation deletes the snapshot: a revive after it re-prefills.

import * as assert from "node:assert/strict";
import { after, afterEach, describe, it } from "mocha";
import * as vscode from "vscode";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestingPanel } from "../../../src/extension/shell/testing/testing-api";
import { api, closeAllPanels, newChat, turn, waitFor } from "./helpers";

const QUESTIONS = [
  "My name is Ada.",
  "What is 2 + 2?",
  "Name a fruit.",
  "Say hello in French.",
  "What colour is the sky?",
  "Name a planet.",
  "What is a CPU?",
  "Say yes.",
  "Name a prime number.",
  "What is Python?",
];
const NEXT = "What is my name?";

async function tenTurns(panel: TestingPanel): Promise<void> {
  for (const text of QUESTIONS) await turn(panel, text);
}

/**
 * Closes the chat as a window reload does (its engine process goes with the last panel) and
 * revives it by id. A chat closed for good loses its snapshot after a few seconds; a reload
 * keeps it because the extension host shuts down first. closeForReload() keeps it the same
 * way, so a slow machine cannot turn this into the close-for-good case.
 */
async function reload(panel: TestingPanel): Promise<TestingPanel> {
  const testing = await api();
  const entries = panel.transcript.length;
  assert.ok(await poll(async () => (await testing.savedTranscript(panel.id))?.entries.length === entries), "the transcript was saved");
  assert.ok(await poll(() => testing.hasSnapshot(panel.id)), "the KV snapshot was saved (in the background, after the turn)");
  panel.closeForReload();
  await waitFor("the model freed", () => testing.loadedEngines() === 0, 30_000);
  return testing.reopen(panel.id);
}

describe("KV snapshots", () => {
  afterEach(closeAllPanels);
  after(closeAllPanels);

  it("a 10-turn chat revived after a reload continues from its snapshot, as if never reloaded", async () => {
    await closeAllPanels();
    const reference = await newChat();
    await tenTurns(reference);
    const expected = await turn(reference, NEXT);
    reference.close();

    const panel = await newChat();
    await tenTurns(panel);
    const position = panel.position;
    const revived = await reload(panel);
    const stats = await turn(revived, NEXT);
    const outcome = (await api()).snapshotOutcome(panel.id);
    assert.deepEqual(outcome && { kind: outcome.kind, tokens: outcome.kind === "snapshot" ? outcome.tokens : undefined }, { kind: "snapshot", tokens: position });
    assert.equal(stats.cached, position, "cached == the restored position");
    assert.deepEqual(stats.resumed, { from: "snapshot", tokens: position });
    assert.equal(stats.prefilled, expected.prefilled, "only the new turn was prefilled");
    assert.equal(stats.reply, expected.reply, "the same reply as the chat that was never reloaded (greedy)");
    assert.equal(revived.transcript.at(-1)?.stats?.resumed?.from, "snapshot", "the status line says so");
  });

  it("a revived chat knows the workspace context its snapshot holds, and keeps its pins", async () => {
    await closeAllPanels();
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, "the test workbench opens a folder");
    const shapes = join(folder.uri.fsPath, "shapes.ts");
    const original = readFileSync(shapes, "utf8");
    await vscode.window.showTextDocument(vscode.Uri.joinPath(folder.uri, "hello.ts"));
    try {
      const panel = await newChat();
      panel.receive({ type: "pinChip", id: "file:shapes.ts", pinned: true });
      await turn(panel, "What do these files do?");
      const sent = (panel.transcript.find((e) => e.role === "user")?.chips ?? []).map((c) => `${c.kind}:${c.label}`);
      assert.ok(sent.includes("file:hello.ts") && sent.includes("file:shapes.ts"), `the first message carried the open and the pinned file: ${JSON.stringify(sent)}`);
      const revived = await reload(panel);
      // Still pinned after the reload: a change to it goes with the next message (as a diff),
      // while the unchanged open file, which the restored cache holds, is not sent again.
      appendFileSync(shapes, "export const added = 1;\n");
      const stats = await turn(revived, "And now?");
      assert.deepEqual(stats.resumed?.from, "snapshot");
      const again = (revived.transcript.filter((e) => e.role === "user").at(-1)?.chips ?? []).map((c) => `${c.kind}:${c.label}`);
      assert.deepEqual(again, ["diff:shapes.ts"], "only the pinned file's change was sent");
    } finally {
      writeFileSync(shapes, original);
      await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    }
  });

  it("Reset Conversation deletes the snapshot, and so does closing the chat for good", async () => {
    const testing = await api();
    const panel = await newChat();
    await turn(panel, "My name is Ada.");
    assert.ok(await poll(() => testing.hasSnapshot(panel.id)), "saved after the turn");
    await panel.reset();
    assert.ok(await poll(async () => !(await testing.hasSnapshot(panel.id))), "deleted by the reset");
    await turn(panel, "Name a fruit.");
    assert.ok(await poll(() => testing.hasSnapshot(panel.id)), "saved after the next turn");
    panel.close();
    assert.ok(await poll(async () => !(await testing.hasSnapshot(panel.id))), "deleted once the chat was closed");
  });
});

/** Polls an asynchronous check (no timing assertion: a generous cap only). */
async function poll(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
