// Workspace context, incrementally, as a user sees it: with a file open, the first message
// carries it (a chip), an unchanged file is not sent again, and an edited file comes back as
// a diff.

import * as assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { startE2ESession, withDiagnostics, type E2ESession } from "./support/session";
import { chatFrame, poll, runFromPalette } from "./support/workbench";

describe("workspace context in the workbench", { timeout: 20 * 60_000 }, () => {
  let session: E2ESession;
  let page: Page;
  let chat: FrameLocator;

  before(async () => {
    session = await startE2ESession("context");
    page = session.browser.page;
    chat = chatFrame(page);
  });
  after(async () => {
    await session?.close();
  });

  const userChips = (n: number) => chat.locator("[data-testid=entry][data-role=user]").nth(n).locator(".chip");
  const lastReplyStatus = () =>
    chat.locator("[data-testid=entry][data-role=assistant]").last().getAttribute("data-status", { timeout: 5_000 }).catch(() => null);
  const send = async (text: string, replies: number): Promise<void> => {
    const composer = chat.locator("[data-testid=composer]");
    await composer.fill(text, { timeout: 120_000 });
    await composer.press("Enter");
    await poll("the reply", async () => [await chat.locator("[data-testid=entry][data-role=assistant]").count(), await lastReplyStatus()] as const,
      ([count, status]) => count === replies && status === "complete", 4 * 60_000);
  };

  it("attaches the open file once, then only its changes", { timeout: 15 * 60_000 }, () => steps().catch((error: unknown) => withDiagnostics(session, error)));

  async function steps(): Promise<void> {
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: 30_000 });
    await input.fill("shapes.ts");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "shapes.ts" }).first().waitFor({ timeout: 30_000 });
    await input.press("Enter");
    await page.locator(".monaco-editor .view-lines", { hasText: "export const area0" }).first().waitFor({ timeout: 60_000 });

    await runFromPalette(page, "Stateful Chat: New Chat");
    await send("What does this file do?", 1);
    await poll("a chip for shapes.ts", () => userChips(0).allTextContents(), (chips) => chips.some((c) => c.includes("shapes.ts")));

    await send("Thanks. Anything to improve?", 2);
    assert.equal(await userChips(1).count(), 0, "the unchanged file was not sent again");

    // Edit the file: the next message carries a diff, not the whole file.
    await page.locator(".tab", { hasText: "shapes.ts" }).first().click();
    await page.locator(".monaco-editor .view-lines").first().click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("\nexport const answer = 42;\n");
    await page.locator(".tab", { hasText: "What does this file do?" }).first().click();
    await send("And now?", 3);
    const chips = await poll("a diff chip", () => userChips(2).allTextContents(), (c) => c.length > 0);
    assert.ok(chips.some((c) => c.includes("shapes.ts")));
    assert.equal(await userChips(2).locator(".codicon-diff").count(), 1, "sent as a diff");
    mkdirSync(session.artifacts, { recursive: true });
    await page.screenshot({ path: join(session.artifacts, "e2e-context.png") });
  }
});
