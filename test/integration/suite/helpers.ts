// Shared by the suites: the extension's test-only API, panel bookkeeping and polling.

import * as assert from "node:assert/strict";
import * as vscode from "vscode";
import type { TurnStats } from "../../../src/extension/core/stats";
import type { StatefulChatApi } from "../../../src/extension/extension";
import type { TestingPanel } from "../../../src/extension/shell/testing/testing-api";

export const EXTENSION_ID = "stateful-chat.stateful-chat";

export function extension(): vscode.Extension<StatefulChatApi> {
  const ext = vscode.extensions.getExtension<StatefulChatApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not loaded in this extension host`);
  return ext;
}

export async function api(): Promise<NonNullable<StatefulChatApi["testing"]>> {
  const testing = (await extension().activate()).testing;
  assert.ok(testing, "the testing API is offered only in VS Code's extension test mode");
  return testing;
}

/** Polls until `check` returns a value (not undefined/false); no timing assertions, only a generous cap. */
export async function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs "Stateful Chat: New Chat" and returns the panel it added. */
export async function newChat(): Promise<TestingPanel> {
  const testing = await api();
  const before = new Set(testing.panels().map((p) => p.id));
  await vscode.commands.executeCommand("statefulChat.newChat");
  return waitFor("a new chat panel", () => testing.panels().find((p) => !before.has(p.id)));
}

export async function closeAllPanels(): Promise<void> {
  await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  const testing = await api();
  await waitFor("all chat panels closed", () => testing.panels().length === 0, 30_000);
}

/** A turn that must have produced stats (undefined means the panel refused the message). */
export async function turn(panel: TestingPanel, text: string): Promise<TurnStats> {
  const stats = await panel.send(text);
  assert.ok(stats, `the panel refused: ${text}`);
  return stats;
}

export function chatTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((group) => group.tabs)
    .filter((tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith("statefulChat.chat"));
}
