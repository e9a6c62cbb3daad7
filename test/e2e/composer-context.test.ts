// Context you can see and steer before sending, as a user does it in code-server + Chromium
// with the real default model: Ask About Selection from the editor's context menu opens the
// side bar's chat with the selection chip; the open file's chip shows before sending and, removed, is
// not sent (the prefilled tokens drop by its cost); "@" + part of a name attaches a file, and
// after an edit the same mention goes as a diff.

import * as assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { startE2ESession, withDiagnostics, type E2ESession } from "./support/session";
import { askAboutSelectionFromMenu, chatFrame, poll } from "./support/workbench";

describe("composer context in the workbench", { timeout: 25 * 60_000 }, () => {
  let session: E2ESession;
  let page: Page;
  let chat: FrameLocator;

  before(async () => {
    session = await startE2ESession("composer-context");
    // Long enough that an edit is cheaper to send as a diff than in full, short enough to fit
    // the per-file budget (a truncated file is never diffed: the model saw only part of it).
    const lines = Array.from({ length: 12 }, (_, i) => `export const perimeter${i} = (w: number, h: number): number => 2 * (w + h) + ${i};`);
    writeFileSync(join(session.folder, "geometry.ts"), `${lines.join("\n")}\n`);
    page = session.browser.page;
    chat = chatFrame(page);
  });
  after(async () => {
    await session?.close();
  });

  const composer = () => chat.locator("[data-testid=composer]");
  const composerChip = (id: string) => chat.locator(`[data-testid=composer-chip][data-id="${id}"]`);
  const composerChipIds = () => chat.locator("[data-testid=composer-chip]").evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.id ?? ""));
  const userEntry = (n: number) => chat.locator("[data-testid=entry][data-role=user]").nth(n);
  const replies = () => chat.locator("[data-testid=entry][data-role=assistant]");

  /** Sends what is in the composer and waits for the reply; returns the tokens prefilled for it. */
  const send = async (count: number): Promise<number> => {
    await composer().press("Enter");
    const stats = await poll(
      "the reply and its stats",
      async () => {
        if ((await replies().count()) !== count) return undefined;
        const last = replies().last();
        if ((await last.getAttribute("data-status")) !== "complete") return undefined;
        return (await last.locator("[data-testid=stats]").textContent()) ?? undefined;
      },
      (text) => typeof text === "string" && /\d+ new/.test(text),
      5 * 60_000,
    );
    return Number(/([\d,]+) new/.exec(stats!)![1].replace(/,/g, ""));
  };

  const openFile = async (name: string, marker: string) => {
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: 30_000 });
    await input.fill(name);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: name }).first().waitFor({ timeout: 30_000 });
    await input.press("Enter");
    await page.locator(".monaco-editor .view-lines", { hasText: marker }).first().waitFor({ timeout: 60_000 });
  };

  const mention = async (partial: string, value: string) => {
    await composer().click();
    await composer().press("End");
    await composer().pressSequentially(` @${partial}`);
    await chat.locator(`[data-testid=mention-option][data-value="${value}"]`).waitFor({ timeout: 60_000 });
    // Move to the wanted row (the first is usually it), then pick it with Enter.
    const values = await chat.locator("[data-testid=mention-option]").evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.value));
    for (let i = 0; i < values.indexOf(value); i++) await composer().press("ArrowDown");
    await composer().press("Enter");
  };

  it("shows, removes, mentions and diffs context before sending", { timeout: 20 * 60_000 }, async () => {
    try {
      await steps();
    } catch (error) {
      mkdirSync(session.artifacts, { recursive: true });
      await page.screenshot({ path: join(session.artifacts, "e2e-composer-context-failure.png") }).catch(() => undefined);
      await withDiagnostics(session, error);
    }
  });

  async function steps(): Promise<void> {
    // Ask About Selection from the editor's context menu: a chat opens with the selection chip.
    await openFile("shapes.ts", "export const area0");
    const firstLine = page.locator(".monaco-editor .view-line", { hasText: "export const area0" }).first();
    await firstLine.click();
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("Shift+ArrowDown");
    // The status bar says "(N selected)" once the editor has the selection.
    await askAboutSelectionFromMenu(page, "area0");
    // The chip, or the toast that says why it did not come (a toast hides itself before a long wait ends).
    const outcome = await poll(
      "the selection chip",
      async () => {
        if (await composerChip("selection").isVisible().catch(() => false)) return "chip";
        const toasts = await page.locator(".notifications-toasts .notification-list-item-message").allTextContents();
        return `toasts: ${toasts.join(" | ") || "none"}`;
      },
      (value) => value === "chip" || /select some code/i.test(value),
      120_000,
    );
    assert.equal(outcome, "chip");
    assert.match((await composerChip("selection").textContent()) ?? "", /Selection in shapes\.ts \(lines 1-3\)/);
    assert.equal(await composerChip("selection").getAttribute("data-origin"), "mention");

    // The open file's chip is there before sending, with its cost in tokens (counted by the
    // model's tokenizer once it has loaded; the chips are recomputed then).
    await composerChip("file:shapes.ts").waitFor({ timeout: 60_000 });
    await poll("the model", async () => (await chat.locator("[data-testid=model-status]").getAttribute("data-state")) ?? "", (s) => s === "ready", 5 * 60_000);
    await page.waitForTimeout(1_000);
    await poll("the file chip", async () => (await composerChip("file:shapes.ts").getAttribute("data-state")) ?? "", (s) => s === "new");
    const fileTokens = Number(/(\d+) tok/.exec((await composerChip("file:shapes.ts").locator("[data-testid=chip-cost]").textContent()) ?? "")![1]);
    assert.ok(fileTokens > 100, `shapes.ts costs ${fileTokens} tokens`);

    // Remove both chips: the message goes without any context.
    await composerChip("file:shapes.ts").locator("[data-testid=chip-remove]").click();
    await composerChip("selection").locator("[data-testid=chip-remove]").click();
    assert.deepEqual(await composerChipIds(), []);
    await composer().fill("Say hello.");
    const without = await send(1);
    assert.equal(await userEntry(0).locator(".chip").count(), 0, "the sent message carries no file");

    // Same question in a fresh conversation with the file's chip left in place.
    await chat.locator("[data-testid=reset]").click();
    await poll("the file chip after the reset", composerChipIds, (ids) => ids.includes("file:shapes.ts"));
    // The editor still has its selection: take that chip off, so only the file differs.
    await poll("the selection chip", composerChipIds, (ids) => ids.includes("selection"));
    await composerChip("selection").locator("[data-testid=chip-remove]").click();
    await poll("only the file chip", composerChipIds, (ids) => ids.length === 1 && ids[0] === "file:shapes.ts");
    await composer().fill("Say hello.");
    const withFile = await send(1);
    assert.deepEqual(await userEntry(0).locator(".chip").allTextContents(), ["shapes.ts"]);
    const difference = withFile - without;
    assert.ok(difference >= fileTokens - 5 && difference <= fileTokens + 20, `prefill with the file ${withFile}, without ${without}: ${difference} vs the chip's ${fileTokens}`);

    // "@" + part of a name: pick hello.ts from the list; it becomes a chip and is sent.
    await composer().fill("What does this do?");
    await mention("hel", "hello.ts");
    await poll("the hello.ts chip", async () => (await composerChip("file:hello.ts").getAttribute("data-state").catch(() => null)) ?? "", (s) => s === "new");
    assert.equal(await composerChip("file:hello.ts").getAttribute("data-origin"), "mention");
    assert.match(await composer().inputValue(), /What does this do\? @hello\.ts $/);
    await send(2);
    assert.ok((await userEntry(1).locator(".chip").allTextContents()).includes("hello.ts"), "the mentioned file was attached");

    // A longer file: mention it, send, edit it, mention it again: it goes as a diff.
    await composer().fill("Summarize");
    await mention("geom", "geometry.ts");
    await poll("the geometry.ts chip", async () => (await composerChip("file:geometry.ts").getAttribute("data-state").catch(() => null)) ?? "", (s) => s === "new");
    await send(3);
    assert.ok((await userEntry(2).locator(".chip").allTextContents()).includes("geometry.ts"));
    await openFile("geometry.ts", "export const perimeter0");
    await page.locator(".monaco-editor .view-lines", { hasText: "export const perimeter0" }).first().click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("\nexport const answer = 42;\n");
    await page.keyboard.press("Control+S");
    // The chat is in the side bar (where Ask About Selection put it), beside the editor: no tab to switch to.
    await composer().fill("And now?");
    await mention("geom", "geometry.ts");
    await poll("a diff chip for geometry.ts", async () => (await composerChip("file:geometry.ts").getAttribute("data-state").catch(() => null)) ?? "", (s) => s === "diff");
    await send(4);
    const sentChip = userEntry(3).locator(".chip", { hasText: "geometry.ts" });
    assert.equal(await sentChip.locator(".codicon-diff").count(), 1, "sent as a diff");

    mkdirSync(session.artifacts, { recursive: true });
    await page.screenshot({ path: join(session.artifacts, "e2e-composer-context.png") });
  }
});
