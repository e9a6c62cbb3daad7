// The VS Code workbench as a user drives it: wait for it to load, run commands from the
// palette, reach into the chat webview.

import type { FrameLocator, Page } from "playwright-core";

const EXTENSION_ID = "stateful-chat.stateful-chat";

export async function waitForWorkbench(page: Page): Promise<void> {
  await page.locator(".monaco-workbench").waitFor({ timeout: 120_000 });
  await page.locator(".statusbar").waitFor({ timeout: 120_000 });
}

/**
 * F1, type the command's label, wait for its row, Enter. The palette computes its list when it
 * opens, so a command contributed by an extension that is still being registered is missing
 * from it: close and reopen until the row shows up.
 */
export async function runFromPalette(page: Page, label: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const input = page.locator(".quick-input-widget input");
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: label }).first();
  for (;;) {
    await page.keyboard.press("F1");
    await input.waitFor({ timeout: 30_000 });
    await input.fill(`>${label}`);
    try {
      await row.waitFor({ timeout: 10_000 });
      break;
    } catch (error) {
      await page.keyboard.press("Escape");
      if (Date.now() > deadline) throw error;
    }
  }
  await input.press("Enter");
  await page.locator(".quick-input-widget").waitFor({ state: "hidden", timeout: 30_000 });
}

/** The chat panel's content: VS Code nests an extension's webview in two iframes. */
export function chatFrame(page: Page): FrameLocator {
  return page.frameLocator(`iframe.webview.ready[src*="extensionId=${EXTENSION_ID}"]`).frameLocator("iframe#active-frame");
}

/**
 * VS Code's own answer when the built-in Copilot Chat agent, which Agent mode runs on, did not
 * get ready in time: its chat setup gives up with "Please try again." (chatSetupProviders,
 * chatTookLongWarningExtension) and nothing reaches any model. A user asks again.
 */
export const VSCODE_CHAT_NOT_READY = /(^|\n)Please try again\.(\n|$)/;

/** Polls `probe` until `accept` holds; returns the accepted value. No timing asserts: only a cap. */
export async function poll<T>(what: string, probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await probe();
    if (accept(last)) return last;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
}

/**
 * Ask About Selection from the editor's context menu, on a selection that covers the line
 * holding `onText`. The right-click lands in the middle of that line: outside the selection, or
 * on its first column's edge, VS Code would move the cursor first and the command would answer
 * "Select some code first" instead of attaching it.
 */
export async function askAboutSelectionFromMenu(page: Page, onText: string): Promise<void> {
  await page.locator(".statusbar", { hasText: "selected" }).waitFor({ timeout: 30_000 });
  await page.locator(".monaco-editor .view-line span", { hasText: onText }).first().click({ button: "right" });
  const item = page.locator(".monaco-menu .action-item", { hasText: "Stateful Chat: Ask About Selection" }).first();
  await item.waitFor({ timeout: 60_000 });
  if (!(await page.locator(".statusbar", { hasText: "selected" }).isVisible())) throw new Error("the right-click moved the cursor out of the selection");
  // VS Code's menu listens for a mouse-up on its items only from a timer 100 ms after the menu
  // renders (so the right-click's own release picks nothing); under load that timer fires late
  // and a click before it is dropped, the menu staying open (CI failed three times on this,
  // the command never ran). A click that ran the command closes the menu: click until it does.
  for (let attempt = 1; ; attempt++) {
    await item.click({ timeout: 60_000 });
    if (await item.waitFor({ state: "hidden", timeout: 5_000 }).then(() => true, () => false)) return;
    if (attempt === 5) throw new Error("the context menu stayed open after 5 clicks on Ask About Selection");
  }
}
