// Bad input in the real extension host: missing or corrupt models, malformed webview
// messages, a panel closed while streaming. Each gives a clear message, no unhandled
// rejection, and nothing is lost from the saved transcript.

import * as assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, describe, it } from "mocha";
import * as vscode from "vscode";
import { api, closeAllPanels, newChat, turn, waitFor } from "./helpers";

const config = () => vscode.workspace.getConfiguration("statefulChat");

describe("bad input", () => {
  let configuredModel: string | undefined;
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);

  before(() => {
    configuredModel = config().get<string>("modelPath");
    process.on("unhandledRejection", onRejection);
  });
  afterEach(async () => {
    await config().update("modelPath", configuredModel, vscode.ConfigurationTarget.Global);
    await closeAllPanels();
  });
  after(() => {
    process.off("unhandledRejection", onRejection);
    assert.deepEqual(rejections.map(String), [], "no unhandled rejection during these tests");
  });

  it("a model path that does not exist: a banner offers Select Model…, the message is kept as not sent", async () => {
    await config().update("modelPath", "/nonexistent/model.gguf", vscode.ConfigurationTarget.Global);
    const panel = await newChat();
    assert.equal(await panel.send("hello?"), undefined);
    const banner = await waitFor("a banner", () => panel.lastBanner);
    assert.match(banner.message, /not found: \/nonexistent\/model\.gguf/);
    assert.ok(banner.actions.some((a) => a.command === "statefulChat.selectModel"));
    assert.equal(panel.transcript[0]?.status, "not-sent");
    const testing = await api();
    let saved = await testing.savedTranscript(panel.id);
    for (let i = 0; i < 100 && saved?.entries[0]?.status !== "not-sent"; i++) {
      await new Promise((r) => setTimeout(r, 100)); // saves are asynchronous; poll, do not time
      saved = await testing.savedTranscript(panel.id);
    }
    assert.equal(saved?.entries[0]?.text, "hello?", "the message is saved");
    assert.equal(saved?.entries[0]?.status, "not-sent");
  });

  it("a corrupt model file: a clear error, and the panel recovers once a good model is set", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sc-corrupt-"));
    const path = join(dir, "broken.gguf");
    writeFileSync(path, "GGUF but nothing else of a model\n");
    await config().update("modelPath", path, vscode.ConfigurationTarget.Global);
    const panel = await newChat();
    assert.equal(await panel.send("hello?"), undefined);
    const banner = await waitFor("a banner", () => panel.lastBanner);
    assert.match(banner.message, /Not a usable model file/);
    await config().update("modelPath", configuredModel, vscode.ConfigurationTarget.Global);
    const stats = await turn(panel, "Say hi.");
    assert.ok(stats.replyTokens > 0, "the same panel answers after the model is fixed");
  });

  it("malformed webview messages are ignored and logged; the panel keeps working", async () => {
    const panel = await newChat();
    const junk: unknown[] = [
      null, 42, "send", [], {}, { type: 1 }, { type: "send" }, { type: "send", text: 5 }, { type: "eval", code: "1" },
      { type: "runCommand", command: "workbench.action.terminal.new" }, { type: "insertCode" }, { type: "copyCode", code: {} },
      { type: "__proto__" }, { type: "send", text: null }, { text: "no type" },
    ];
    for (let i = 0; i < 20; i++) for (const j of junk) panel.receive(j);
    assert.equal(panel.ignoredMessages, junk.length * 20);
    assert.equal(panel.transcript.length, 0, "nothing was sent");
    const stats = await turn(panel, "Still fine?");
    assert.ok(stats.replyTokens > 0);
  });

  it("an oversized paste is refused with a clear message and nothing is lost", async () => {
    const panel = await newChat();
    assert.equal(await panel.send("x".repeat(250_000)), undefined);
    const banner = await waitFor("a banner", () => panel.lastBanner);
    assert.match(banner.message, /limit is 200,000/);
    const stats = await turn(panel, "And now?");
    assert.equal(stats.cached, 0, "the refused paste never reached the model");
  });

  it("closing the panel mid-stream stops cleanly and keeps what was streamed in the saved transcript", async () => {
    const panel = await newChat();
    await turn(panel, "Hi");
    const pending = panel.send("Write a very long story about a dragon who learns to program.");
    await waitFor("streamed text", () => {
      const reply = panel.transcript.at(-1);
      return reply?.role === "assistant" && reply.text.length > 20;
    });
    panel.close();
    // It settles without throwing: with nothing, or with the stats of a turn that ended as stopped.
    const settled = await pending;
    assert.ok(settled === undefined || settled.stopReason === "cancelled", `the send settled as ${JSON.stringify(settled)}`);
    const testing = await api();
    let transcript = await testing.savedTranscript(panel.id);
    for (let i = 0; i < 100 && !((transcript?.entries.at(-1)?.text.length ?? 0) > 20); i++) {
      await new Promise((r) => setTimeout(r, 100)); // the final save is asynchronous; poll, do not time
      transcript = await testing.savedTranscript(panel.id);
    }
    assert.ok(transcript, "saved on disk");
    const last = transcript.entries.at(-1)!;
    assert.equal(last.role, "assistant");
    assert.ok(last.text.length > 20, "the streamed part is kept");
    assert.ok((await testing.history()).some((h) => h.entries === transcript.entries.length), "closed chats go to history");
  });
});
