// VS Code's own Chat view in code-server + Chromium, without a GitHub sign-in
// (chat.allowAnonymousAccess): its model picker lists our model, a question asked there is
// answered by it, and @stateful's follow-up reports the tokens it reused from the cache.

import * as assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import type { Page } from "playwright-core";
import { fixtureModel } from "../support/fixture-models";
import { journey } from "./support/journey";
import { startE2ESession, type E2ESession } from "./support/session";
import { poll, runFromPalette, VSCODE_CHAT_NOT_READY } from "./support/workbench";

const STEP_TIMEOUT = 6 * 60_000;
/** Agent mode (the only mode of the built-in Chat without Copilot) lists models with tool calling only: the tool-template copy of the default model. */
const OUR_MODEL = "qwen-tools";
/**
 * Our whole stats line. The Chat view renders a reply word by word after it has arrived, so
 * a poll that stopped at " cached · " could read "0 cached · 3" before the rest was shown.
 */
const STATS_LINE = /[\d,]+ cached · [\d,]+ new · .*context \d+%/;
const AGENT_MODE_ATTEMPTS = 3;

describe("VS Code's Chat view with our model", { timeout: 20 * 60_000 }, () => {
  let session: E2ESession;
  let page: Page;

  const shot = async (name: string): Promise<void> => {
    mkdirSync(session.artifacts, { recursive: true });
    await page.screenshot({ path: join(session.artifacts, `e2e-vscode-chat-${name}.png`) });
  };
  const step = journey(() => session, shot, STEP_TIMEOUT);
  const chatInput = () => page.locator(".part.auxiliarybar .interactive-input-part .monaco-editor").first();
  /** The Chat view in the secondary side bar (not a chat editor). */
  const responses = () => page.locator(".part.auxiliarybar .interactive-item-container.interactive-response");
  const lastResponseText = () => responses().last().innerText({ timeout: 5_000 }).catch(() => "");

  before(async () => {
    session = await startE2ESession("vscode-chat", {
      "chat.disableAIFeatures": false,
      "workbench.secondarySideBar.defaultVisibility": "visible",
      "statefulChat.modelPath": fixtureModel("qwen-tools"),
      "statefulChat.contextSize": 8192,
    });
    page = session.browser.page;
  });
  after(async () => {
    await session?.close();
  });

  step("opens the Chat view", async () => {
    await runFromPalette(page, "Chat: Open Chat");
    await chatInput().waitFor({ timeout: 120_000 });
    await shot("1-open");
  });

  step("its model picker lists our model, and we pick it", async () => {
    // The picker lists the models resolved when it opens: reopen it until ours are in.
    const picker = page.locator(".chat-input-toolbars .action-label").filter({ hasText: /^(Auto|qwen-tools.*)$/ }).first();
    const ours = page.locator(".action-widget .monaco-list-row, .monaco-list-row", { hasText: OUR_MODEL }).first();
    const deadline = Date.now() + 120_000;
    for (;;) {
      await picker.click({ timeout: 60_000 });
      try {
        await ours.waitFor({ timeout: 5_000 });
        break;
      } catch (error) {
        await page.keyboard.press("Escape");
        if (Date.now() > deadline) throw error;
      }
    }
    await shot("3-picker");
    await ours.click();
    await shot("4-picked");
  });

  /** The questions shown in the Chat view. */
  const requests = () => page.locator(".part.auxiliarybar .interactive-item-container.interactive-request");

  /**
   * Replaces the chat input's text (a sticky participant may have left "@stateful" in it) and
   * sends it, then waits until the Chat view shows it as a question: an Enter the input did not
   * take (a picker still closing, a suggestion list open) is pressed once more, as a user would;
   * a question never shown fails here, not as a missing answer minutes later.
   */
  const ask = async (text: string): Promise<void> => {
    const before = await requests().count();
    await chatInput().click();
    await page.keyboard.press("Control+A");
    await page.keyboard.type(text);
    const shown = () => poll("the question in the Chat view", () => requests().count(), (n) => n > before, 15_000);
    await page.keyboard.press("Enter");
    try {
      await shown();
    } catch {
      console.log(`# [vscode-chat] the Chat view did not show "${text}" 15 s after Enter; pressing Enter again`);
      await chatInput().click();
      await page.keyboard.press("End");
      await page.keyboard.press("Enter");
      await shown();
    }
  };

  step("@stateful answers a question asked there, with our stats line", async () => {
    await ask("@stateful What is a CPU?");
    const text = await poll("@stateful's answer", lastResponseText, (t) => STATS_LINE.test(t), 4 * 60_000);
    await shot("5-answered");
    assert.match(text, /(^|\D)0 cached · \d+ new/, `the first question is all new: ${text.slice(-240)}`);
  });

  step("the follow-up reports the tokens it reused from the cache", async () => {
    const first = await lastResponseText();
    await ask("@stateful Say it shorter.");
    const text = await poll("the follow-up's answer", lastResponseText, (t) => t !== first && STATS_LINE.test(t), 4 * 60_000);
    await shot("6-follow-up");
    const cached = Number(/([\d,]+) cached/.exec(text)?.[1].replace(/,/g, ""));
    assert.ok(cached > 20, `the follow-up reused the conversation from the cache: ${text.slice(-200)}`);
  });

  step("Agent mode's own request, larger than the model's context, is refused with a clear message", async () => {
    // Agent mode runs on VS Code's built-in Copilot Chat agent, which may not be ready yet
    // (VSCODE_CHAT_NOT_READY). A user asks again; so does this step, a few times, and the
    // refusal must then be ours.
    let text: string;
    for (let attempt = 1; ; attempt++) {
      const first = await lastResponseText();
      await ask("What is a KV cache?");
      text = await poll("the refusal", lastResponseText, (t) => t !== first && (/holds [\d,]+ \(/.test(t) || VSCODE_CHAT_NOT_READY.test(t)), 4 * 60_000);
      if (!VSCODE_CHAT_NOT_READY.test(text) || attempt === AGENT_MODE_ATTEMPTS) break;
      console.log(`# [vscode-chat] attempt ${attempt}: VS Code's chat setup answered "Please try again." (its Copilot agent not ready); asking again`);
      await new Promise((r) => setTimeout(r, 10_000));
    }
    await shot("7-agent-mode-too-large");
    assert.match(text, /This request is [\d,]+ tokens/);
  });
});
