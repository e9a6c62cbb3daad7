// The engine in its own process, inside the real extension host: one engine process per
// model (not per panel); SIGKILL it mid-reply and the partial reply and the transcript stay,
// the error offers Retry, and the next message is answered with the whole conversation in
// context (the same reply as a chat that never crashed). The extension host's pid never
// changes; ten kills in a row end in the crash-loop guard saying so.

import * as assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { after, afterEach, describe, it } from "mocha";
import * as vscode from "vscode";
import type { TestingPanel } from "../../../src/extension/shell/testing/testing-api";
import { assertEngineHoldsLedger } from "./engine-cache";
import { api, closeAllPanels, extension, newChat, turn, waitFor } from "./helpers";

const FACT = "My name is Ada and my favourite number is 42.";
const LONG = "Write a long poem about the sea, with many verses.";
const QUESTION = "What is my favourite number?";

/** Child processes of this extension host that run the engine host entry. */
function engineChildren(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const ppid = Number(readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1].split(" ")[1]);
      if (ppid === process.pid && readFileSync(`/proc/${name}/cmdline`, "utf8").includes("engine-host")) pids.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

function rssKiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
  return Number(line?.split(/\s+/)[1] ?? 0);
}

async function enginePid(): Promise<number> {
  const testing = await api();
  return waitFor("a running engine process", () => testing.engineProcesses()[0]?.pid);
}

/** Sends `text` and SIGKILLs the engine process once the reply has started streaming. */
async function sendAndKill(panel: TestingPanel, text: string): Promise<number | undefined> {
  const entries = panel.transcript.length;
  const sending = panel.send(text);
  await waitFor("the reply to stream, or the turn to fail", () => {
    const reply = panel.transcript.slice(entries).find((e) => e.role === "assistant");
    return (reply && reply.text.length > 0) || !panel.busy;
  });
  // Read once the reply streams: the model (and its process) may have been loading until now.
  const pid = (await api()).engineProcesses()[0]?.pid;
  if (pid !== undefined && panel.busy) process.kill(pid, "SIGKILL");
  assert.equal(await sending, undefined, "the turn completed although its engine process was killed");
  return pid;
}

/** Polls the saved transcript until an entry matches (saving is asynchronous). */
async function savedWith(panel: TestingPanel, match: (e: TestingPanel["transcript"][number]) => boolean): Promise<boolean> {
  const testing = await api();
  for (let i = 0; i < 100; i++) {
    if ((await testing.savedTranscript(panel.id))?.entries.some(match)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/**
 * After a kill: this code runs in the extension host, so that it runs at all shows the host
 * survived. What could still break is the extension in it: it must be active with its panels.
 */
async function assertExtensionUnaffected(): Promise<void> {
  assert.ok(extension().isActive, "the extension is still active");
  assert.ok((await api()).panels().length > 0, "its chats are still open");
}

describe("engine process", () => {
  afterEach(closeAllPanels);
  after(closeAllPanels);

  it("runs one engine process per model, shared by its panels", async () => {
    await closeAllPanels();
    const a = await newChat();
    const b = await newChat();
    await turn(a, "Hi");
    await turn(b, "Hello");
    // An engine of an earlier test may still be shutting down: wait for it, not for a second one.
    const children = await waitFor("one engine process for two panels", () => (engineChildren().length === 1 ? engineChildren() : undefined), 30_000);
    assert.deepEqual((await api()).engineProcesses().map((p) => p.pid), children);
    const rss = rssKiB(children[0]);
    console.log(`      engine process ${children[0]}: ${Math.round(rss / 1024)} MiB resident for 2 panels; extension host ${Math.round(rssKiB(process.pid) / 1024)} MiB`);
    assert.ok(rss > 0);
  });

  it("SIGKILL mid-reply: partial reply and transcript kept, Retry offered, next message answered with the whole conversation", async () => {
    const reference = await newChat();
    await turn(reference, FACT);
    const expected = await turn(reference, QUESTION);
    reference.close();

    const panel = await newChat();
    await turn(panel, FACT);
    const ledgerBefore = panel.ledgerLength;
    const killed = await sendAndKill(panel, LONG);
    assert.ok(killed);
    await assertExtensionUnaffected();

    const roles = panel.transcript.map((e) => `${e.role}:${e.status}`);
    assert.deepEqual(roles, ["user:complete", "assistant:complete", "user:complete", "assistant:error", "notice:complete"]);
    const partial = panel.transcript[3]!;
    assert.ok(partial.text.length > 0 && !partial.text.startsWith("The engine process"), "the partial reply stays");
    assert.match(panel.transcript[4]!.text, /^engine_crashed: The engine process stopped \(killed by SIGKILL\)/);
    assert.match(panel.lastBanner?.message ?? "", /killed by SIGKILL/);
    assert.deepEqual(panel.lastBanner?.actions, [{ label: "Retry", command: "statefulChat.retry" }]);
    assert.equal(panel.ledgerLength, ledgerBefore, "the failed turn left the ledger as it was");
    assert.ok(await savedWith(panel, (e) => e.status === "error" && e.text === partial.text), "the partial reply is saved");

    const answer = await turn(panel, QUESTION);
    assert.notEqual(await enginePid(), killed, "a new engine process");
    assert.equal(answer.cached, 0);
    assert.equal(answer.prefilled, expected.prefilled + expected.cached, "the whole conversation was re-prefilled");
    assert.equal(answer.reply, expected.reply, "the same reply as the chat that never crashed (greedy)");
    await assertEngineHoldsLedger(panel);
    await assertExtensionUnaffected();
  });

  it("Retry (the banner's command) sends the failed message again", async () => {
    const panel = await newChat();
    await turn(panel, FACT);
    await sendAndKill(panel, "Count from one to thirty.");
    const before = panel.transcript.length;
    await vscode.commands.executeCommand("statefulChat.retry");
    await waitFor("the retried reply", () => !panel.busy && panel.transcript.length >= before + 2 && panel.transcript.at(-1)!.status === "complete");
    assert.equal(panel.transcript.at(-2)!.text, "Count from one to thirty.");
    assert.equal(panel.transcript.at(-1)!.role, "assistant");
  });

  it("ten kills in a row: the host survives and the crash-loop guard stops restarting, saying why", async () => {
    const panel = await newChat();
    for (let i = 0; i < 10; i++) await sendAndKill(panel, `Count from one to twenty, attempt ${i + 1}.`);
    await assertExtensionUnaffected();
    assert.match(panel.lastBanner?.message ?? "", /crashed \d+ times within 60 s, so it is not restarted again/);
    assert.deepEqual(panel.lastBanner?.actions, [{ label: "Select Model…", command: "statefulChat.selectModel" }]);
    const processes = (await api()).engineProcesses();
    assert.equal(processes[0]?.pid, undefined, "no engine process runs");
    assert.equal(engineChildren().length, 0);
    // Closing the panels frees the model; a new chat starts a fresh engine process.
    await closeAllPanels();
    const fresh = await newChat();
    const stats = await turn(fresh, "Hi");
    assert.ok(stats.reply.length > 0);
  });
});
