// Settings reach open chats: turn options on the next turn, a new model on Reset Conversation.
// Renamed settings keep working (a value under an old name is moved to the new one), and a
// workspace cannot choose the backend or server (machine-scoped: ignored, with a notice).

import * as assert from "node:assert/strict";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "mocha";
import * as vscode from "vscode";
import { api, closeAllPanels, newChat, turn, waitFor } from "./helpers";

const config = () => vscode.workspace.getConfiguration("statefulChat");

/** The user's reply limit, under the new name or (the suite's user settings may still use it) the old one. */
async function userReplyLimit(): Promise<number | undefined> {
  await api(); // activated: old names are being migrated
  return config().inspect<number>("reply.maxTokens")?.globalValue ?? config().inspect<number>("maxNewTokens")?.globalValue;
}

describe("settings in open chats", () => {
  const original: { modelPath?: string; maxTokens?: number } = {};
  before(async () => {
    original.modelPath = config().get<string>("modelPath");
    original.maxTokens = await userReplyLimit();
  });
  after(async () => {
    await config().update("modelPath", original.modelPath, vscode.ConfigurationTarget.Global);
    await config().update("reply.maxTokens", original.maxTokens, vscode.ConfigurationTarget.Global);
    await closeAllPanels();
  });

  it("a hand-edited temperature of -0.5 is clamped to 0 with one warning naming it, and the chat answers", async () => {
    await config().update("temperature", -0.5, vscode.ConfigurationTarget.Global);
    try {
      const panel = await newChat();
      const stats = await turn(panel, "Hi");
      assert.ok(stats.replyTokens > 0, "answered instead of hanging on the engine's refusal");
      await turn(panel, "Hello again");
      const warnings = (await api()).settingWarnings().filter((w) => w.includes("statefulChat.temperature"));
      assert.deepEqual(warnings, ["Stateful Chat: statefulChat.temperature -0.5 is outside 0–2; using 0."], "one warning, not one per turn");
    } finally {
      await config().update("temperature", undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it("a new reply limit applies to the next turn of an open chat", async () => {
    const panel = await newChat();
    await turn(panel, "Hi");
    await config().update("reply.maxTokens", 3, vscode.ConfigurationTarget.Global);
    const stats = await turn(panel, "Write a long poem about the sea.");
    assert.ok(stats.replyTokens <= 3, `reply tokens: ${stats.replyTokens}`);
  });

  it("a new model is used after Reset Conversation, and the old one is freed", async () => {
    await closeAllPanels();
    const testing = await api();
    const panel = await newChat();
    await turn(panel, "Hi");
    const copy = join(mkdtempSync(join(tmpdir(), "sc-model-")), "other-copy.gguf");
    copyFileSync(original.modelPath!, copy);
    await config().update("modelPath", copy, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand("statefulChat.resetConversation");
    const stats = await turn(panel, "Hello again");
    assert.equal(stats.cached, 0);
    assert.ok(stats.replyTokens > 0);
    await waitFor("one engine loaded", () => testing.loadedEngines() === 1, 30_000);
  });
});

describe("renamed settings", () => {
  let original: number | undefined;
  before(async () => {
    original = await userReplyLimit();
  });
  after(async () => {
    await config().update("maxNewTokens", undefined, vscode.ConfigurationTarget.Global);
    await config().update("reply.maxTokens", original, vscode.ConfigurationTarget.Global);
    await closeAllPanels();
  });

  it("a value written under the old name statefulChat.maxNewTokens moves to statefulChat.reply.maxTokens and limits replies", async () => {
    await config().update("reply.maxTokens", undefined, vscode.ConfigurationTarget.Global);
    await config().update("maxNewTokens", 3, vscode.ConfigurationTarget.Global);
    await waitFor(
      "the value moved to the new name",
      () => config().inspect("reply.maxTokens")?.globalValue === 3 && config().inspect("maxNewTokens")?.globalValue === undefined,
      30_000,
    );
    const panel = await newChat();
    const stats = await turn(panel, "Write a long poem about the sea.");
    assert.ok(stats.replyTokens <= 3, `reply tokens: ${stats.replyTokens}`);
  });
});

describe("machine-scoped settings in a workspace", () => {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const file = folder && vscode.Uri.joinPath(folder, ".vscode", "settings.json");
  let before: Uint8Array | undefined;
  after(async () => {
    if (!file) return;
    if (before) await vscode.workspace.fs.writeFile(file, before);
    else await vscode.workspace.fs.delete(file).then(undefined, () => undefined);
    await closeAllPanels();
  });

  it("a workspace's statefulChat.backend and statefulChat.server.url are ignored, with one notice naming each", async () => {
    assert.ok(folder && file, "the suite runs with a folder open");
    const testing = await api();
    await turn(await newChat(), "Hi"); // settings have been read: the workspace's settings files are watched
    before = await vscode.workspace.fs.readFile(file).then(
      (bytes) => bytes,
      () => undefined,
    );
    const existing = before ? (JSON.parse(new TextDecoder().decode(before)) as Record<string, unknown>) : {};
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(folder, ".vscode"));
    const planted = { ...existing, "statefulChat.backend": "remote", "statefulChat.server.url": "http://192.0.2.1:9" };
    await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(JSON.stringify(planted, null, 2)));

    const notices = (name: string) => testing.settingWarnings().filter((w) => w.startsWith(`Stateful Chat: statefulChat.${name} in this workspace's settings is ignored`));
    await waitFor("a notice for each planted setting", () => notices("backend").length > 0 && notices("server.url").length > 0, 60_000);

    await closeAllPanels();
    const panel = await newChat();
    const stats = await turn(panel, "Hello");
    assert.ok(stats.replyTokens > 0, "answered by the local model, not sent to the workspace's server");
    await turn(panel, "Hello again");
    assert.equal(notices("backend").length, 1, "one notice, not one per read");
    assert.equal(notices("server.url").length, 1);
  });
});
