// The user's path through a real VS Code (code-server) with the extension installed from
// its VSIX: New Chat from the palette, a streamed reply, Stop mid-reply, Reset Conversation
// from the palette, another turn, and a window reload that restores the transcript and whose
// next answer resumes from the KV snapshot (not a re-prefill).

import * as assert from "node:assert/strict";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { REQUIRE_FAST_BUILD_ENV } from "../support/our-llama-build";
import { journey } from "./support/journey";
import { startE2ESession, type E2ESession } from "./support/session";
import { recordedLengths, recordStreamingLengths, stopOnFirstText } from "./support/stream-watch";
import { chatFrame, poll, runFromPalette, waitForWorkbench } from "./support/workbench";

const STEP_TIMEOUT = 6 * 60_000;

describe("chat in the workbench", { timeout: 30 * 60_000 }, () => {
  let session: E2ESession;
  let page: Page;
  let chat: FrameLocator;

  const shot = async (name: string): Promise<void> => {
    mkdirSync(session.artifacts, { recursive: true });
    await page.screenshot({ path: join(session.artifacts, `e2e-${name}.png`) });
  };
  const entries = () => chat.locator("[data-testid=entry]");
  const lastAssistant = () => chat.locator("[data-testid=entry][data-role=assistant]").last();
  /** The chats' KV snapshot metadata files in the extension's global storage. */
  const snapshotMetas = (): string[] => {
    try {
      return readdirSync(join(session.userDataDir, "User", "globalStorage", "stateful-chat.stateful-chat", "kv-snapshots")).filter((name) => name.endsWith(".json"));
    } catch {
      return [];
    }
  };
  const send = async (text: string): Promise<void> => {
    const composer = chat.locator("[data-testid=composer]");
    await composer.fill(text, { timeout: 120_000 });
    await composer.press("Enter");
  };
  // null until the reply's entry exists (the model may still be loading).
  const statusOfLastReply = () => lastAssistant().getAttribute("data-status", { timeout: 5_000 }).catch(() => null);
  const step = journey(() => session, shot, STEP_TIMEOUT);

  before(async () => {
    session = await startE2ESession("chat");
    page = session.browser.page;
    chat = chatFrame(page);
  });
  after(async () => {
    await session?.close();
  });

  step("opens a chat from the command palette", async () => {
    await runFromPalette(page, "Stateful Chat: New Chat");
    await chat.locator("[data-testid=composer]").waitFor({ timeout: 120_000 });
    await shot("1-new-chat");
  });

  step("streams a reply token by token", async () => {
    await recordStreamingLengths(chat);
    await send("Explain in detail, in at least 200 words, what a KV cache is.");
    await chat.locator("[data-testid=entry][data-role=user]").first().waitFor({ timeout: 60_000 });
    await poll("the reply to complete", statusOfLastReply, (s) => s === "complete", 4 * 60_000);
    await shot("2-streamed");
    // Every length the webview showed while the reply was streaming: it must have grown.
    const lengths = await recordedLengths(chat);
    assert.ok(lengths.length >= 2, `the reply appeared in ${lengths.length} step(s): ${lengths.join(",")}`);
    // Not strictly monotonic: streaming markdown may re-render (e.g. `**` turning into bold).
    assert.ok(lengths[lengths.length - 1]! > lengths[0]!, `the text did not grow: ${lengths.join(",")}`);
    const text = await lastAssistant().locator(".entry-body").textContent();
    assert.ok((text ?? "").trim().length > 0, "empty reply");
    // The model details (the model chip's tooltip) name the llama.cpp build that answered: with
    // our build made on purpose (npm test), the installed VSIX must run it, not the prebuilt.
    const details = (await chat.locator("[data-testid=model-status]").getAttribute("title")) ?? "";
    console.log(`model details: ${details}`);
    if (process.env[REQUIRE_FAST_BUILD_ENV] === "1") assert.match(details, /our build/, "the VSIX runs node-llama-cpp's prebuilt, not our build");
  });

  step("stops a long reply mid-way", async () => {
    const before = await entries().count();
    await stopOnFirstText(chat);
    await send("Write a very long story, at least 800 words, about a dragon who learns to program in TypeScript.");
    await poll("the new reply", () => entries().count(), (n) => n >= before + 2, 4 * 60_000);
    await poll("the reply to be marked stopped", statusOfLastReply, (s) => s === "stopped" || s === "complete", 4 * 60_000);
    assert.equal(await statusOfLastReply(), "stopped");
    await chat.locator("[data-testid=stop]").waitFor({ state: "hidden", timeout: 30_000 });
    await shot("3-stopped");
  });

  step("Reset Conversation from the palette clears the transcript", async () => {
    assert.ok((await entries().count()) > 0, "nothing to clear");
    await runFromPalette(page, "Stateful Chat: Reset Conversation");
    await poll("the transcript to clear", () => entries().count(), (n) => n === 0, 60_000);
    await shot("4-reset");
  });

  step("answers again after the reset", async () => {
    await send("Say hello.");
    await poll("the reply to complete", statusOfLastReply, (s) => s === "complete", 4 * 60_000);
    assert.equal(await entries().count(), 2);
    await shot("5-after-reset");
  });

  step("restores the transcript after a window reload", async () => {
    // The KV snapshot is written in the background after each turn: reload once it is on disk
    // (its metadata file is written last), so the next step can check that it is used.
    await poll("the KV snapshot on disk", () => Promise.resolve(snapshotMetas().length), (n) => n === 1, 60_000);
    await page.reload();
    await waitForWorkbench(page);
    await poll("the restored entries", () => entries().count(), (n) => n >= 2, 2 * 60_000);
    const user = await chat.locator("[data-testid=entry][data-role=user] .entry-body").first().textContent();
    assert.match(user ?? "", /Say hello/);
    await shot("6-reloaded");
  });

  step("the first answer after the reload resumes from the KV snapshot", async () => {
    await send("Say goodbye.");
    // The reply's entry appears once the model has loaded again (a fresh extension host).
    await poll("the new reply", () => entries().count(), (n) => n === 4, 4 * 60_000);
    await poll("the reply to complete", statusOfLastReply, (s) => s === "complete", 4 * 60_000);
    // The status line says where the cache came from: a re-prefill would say "re-prefilled N tokens".
    const stats = (await lastAssistant().locator("[data-testid=stats]").textContent()) ?? "";
    assert.match(stats, /restored from snapshot/, `status line: ${stats}`);
    await shot("7-resumed");
  });
});
