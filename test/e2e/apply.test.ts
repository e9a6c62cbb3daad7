// Apply as a user does it, in code-server + Chromium with the extension installed from its
// VSIX and the real default model: with hello.ts open, a real turn's reply holds a code block;
// its Apply button changes hello.ts (the question's file) and opens the diff editor; Keep in
// the diff editor's title leaves the file changed on disk; Ctrl+Z in the file restores it, and
// the block says so.

import * as assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { startE2ESession, withDiagnostics, type E2ESession } from "./support/session";
import { chatFrame, poll, runFromPalette } from "./support/workbench";

const ORIGINAL = "export function hello(name: string): string {\n  return `Hello, ${name}!`;\n}\n";
/** Greedy SmolLM2-135M copies this block into its reply (checked by the test: the block must say Hi). */
const QUESTION = "Copy this code into your answer, unchanged, in one code block:\n\nexport function hello(name: string): string {\n  return `Hi, ${name}!`;\n}";

describe("Apply in the workbench", { timeout: 20 * 60_000 }, () => {
  let session: E2ESession;
  let page: Page;
  let chat: FrameLocator;

  before(async () => {
    session = await startE2ESession("apply");
    page = session.browser.page;
    chat = chatFrame(page);
  });
  after(async () => {
    await session?.close();
  });

  const shot = async (name: string) => {
    mkdirSync(session.artifacts, { recursive: true });
    await page.screenshot({ path: join(session.artifacts, `e2e-apply-${name}.png`) });
  };
  const hello = () => readFileSync(join(session.folder, "hello.ts"), "utf8");

  it("applies a reply's code block through the UI: diff editor, Keep, Ctrl+Z", { timeout: 15 * 60_000 }, async () => {
    try {
      await steps();
    } catch (error) {
      await shot("failed").catch(() => undefined);
      await withDiagnostics(session, error);
    }
  });

  async function steps(): Promise<void> {
    assert.equal(hello(), ORIGINAL);
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: 30_000 });
    await input.fill("hello.ts");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "hello.ts" }).first().waitFor({ timeout: 30_000 });
    await input.press("Enter");
    await page.locator(".monaco-editor .view-lines", { hasText: "export function hello" }).first().waitFor({ timeout: 60_000 });

    await runFromPalette(page, "Stateful Chat: New Chat");
    const composer = chat.locator("[data-testid=composer]");
    await chat.locator("[data-testid=composer-chip][data-id='file:hello.ts']").waitFor({ timeout: 120_000 });
    await composer.fill(QUESTION, { timeout: 120_000 });
    await composer.press("Enter");
    const reply = chat.locator("[data-testid=entry][data-role=assistant]").last();
    await poll("the reply", () => reply.getAttribute("data-status", { timeout: 5_000 }).catch(() => null), (s) => s === "complete", 5 * 60_000);
    const block = reply.locator(".entry-answer .code-block").first();
    assert.match((await block.locator("pre code").textContent()) ?? "", /return `Hi, \$\{name\}!`;/, "the model copied the block");
    await shot("1-reply");

    // Apply: hello.ts (the file the question was sent with) changes, and the diff editor opens.
    await block.getByTestId("apply-code").click();
    const status = block.getByTestId("apply-status");
    await poll("the block's state", () => status.getAttribute("data-state", { timeout: 5_000 }).catch(() => null), (s) => s === "applied", 2 * 60_000);
    assert.match((await status.textContent()) ?? "", /Applied to hello\.ts/);
    await page.locator(".tab", { hasText: "hello.ts: Original ↔ Applied" }).first().waitFor({ timeout: 60_000 });
    const diff = page.locator(".monaco-diff-editor").first();
    await diff.waitFor({ timeout: 60_000 });
    await diff.locator(".editor.modified .view-lines", { hasText: "Hi, " }).waitFor({ timeout: 30_000 });
    await diff.locator(".editor.original .view-lines", { hasText: "Hello, " }).waitFor({ timeout: 30_000 });
    assert.equal(hello(), ORIGINAL, "nothing written before Keep");
    await shot("2-diff");

    // Keep, in the diff editor's title.
    await page.locator(".editor-actions .action-label[aria-label^='Keep']").first().click({ timeout: 60_000 });
    await poll("hello.ts on disk", () => Promise.resolve(hello()), (text) => text.includes("Hi, ${name}!"), 60_000);
    await page.locator(".tab", { hasText: "Original ↔ Applied" }).waitFor({ state: "detached", timeout: 30_000 });
    await poll("the block's state", () => status.getAttribute("data-state", { timeout: 5_000 }).catch(() => null), (s) => s === "kept", 30_000);
    await shot("3-kept");

    // Ctrl+Z in the file brings back what was there.
    const editor = page.locator(".editor-instance .monaco-editor", { hasText: "export function hello" }).first();
    await editor.locator(".view-lines").click();
    await page.keyboard.press("Control+Z");
    await editor.locator(".view-lines", { hasText: "Hello, " }).waitFor({ timeout: 30_000 });
    assert.doesNotMatch((await editor.locator(".view-lines").textContent()) ?? "", /Hi, /);
    // ...and the block follows: no longer "Kept".
    await poll("the block's state", () => status.getAttribute("data-state", { timeout: 5_000 }).catch(() => null), (s) => s === "reverted", 30_000);
    assert.match((await status.textContent()) ?? "", /Reverted in the editor after Keep/);
    await shot("4-undone");
  }
});
