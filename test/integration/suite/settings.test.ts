// Settings reach open chats: turn options on the next turn, a new model on Reset Conversation.

import * as assert from "node:assert/strict";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "mocha";
import * as vscode from "vscode";
import { api, closeAllPanels, newChat, turn, waitFor } from "./helpers";

const config = () => vscode.workspace.getConfiguration("statefulChat");

describe("settings in open chats", () => {
  const original = { modelPath: config().get<string>("modelPath"), maxNewTokens: config().get<number>("maxNewTokens") };
  after(async () => {
    await config().update("modelPath", original.modelPath, vscode.ConfigurationTarget.Global);
    await config().update("maxNewTokens", original.maxNewTokens, vscode.ConfigurationTarget.Global);
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
    await config().update("maxNewTokens", 3, vscode.ConfigurationTarget.Global);
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
