// The VSIX's portable build of ours in code-server: ggml maps the best CPU variant this CPU
// runs (the model details name it) and, with that variant's library gone from the installed
// extension, the next lower one, so a user whose CPU lacks the packaging machine's flags still
// gets our build, not node-llama-cpp's prebuilt.
//
// Needs a VSIX that carries the portable build (`node out/cli.js build-llama --portable`, about
// 18 min on two cores): npm test builds the native one only, so there this says loudly that it
// is skipped and why.

import * as assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { repoRoot } from "../support/default-model";
import { log } from "../integration/harness/provision";
import { mappedLibraries } from "./support/mapped-libraries";
import { startE2ESession, withDiagnostics, type E2ESession } from "./support/session";
import { vsixFor } from "./support/shared-vsix";
import { vsixFiles } from "./support/vsix-contents";
import { chatFrame, poll, runFromPalette, waitForWorkbench } from "./support/workbench";

const STEP_TIMEOUT = 8 * 60_000;
const VARIANT_LIBRARY = /^libggml-cpu-([A-Za-z0-9_]+)\.so/;
const DETAILS_VARIANT = /our build, portable CPU variants \(CPU variant ([A-Za-z0-9_]+)\)/;

/** The CPU variants the VSIX's build of ours carries (none: a native build or the prebuilt only). */
function shippedVariants(vsix: string): string[] {
  return vsixFiles(vsix)
    .filter((f) => f.startsWith("node_modules/node-llama-cpp/llama/localBuilds/"))
    .map((f) => VARIANT_LIBRARY.exec(f.slice(f.lastIndexOf("/") + 1))?.[1])
    .filter((v): v is string => v !== undefined);
}

describe("our portable build's CPU variants in code-server", { timeout: 30 * 60_000 }, () => {
  let variants: string[] = [];
  let session: E2ESession | undefined;
  let page: Page;
  let chat: FrameLocator;
  let first: string | undefined;
  /** The library of that variant the engine mapped: our build's (the prebuilts carry variants of the same names). */
  let firstLibrary: string | undefined;

  const shot = async (name: string): Promise<void> => {
    if (!session) return;
    mkdirSync(session.artifacts, { recursive: true });
    await page.screenshot({ path: join(session.artifacts, `e2e-cpu-variants-${name}.png`) });
  };
  const replies = () => chat.locator("[data-testid=entry][data-role=assistant]");
  const lastStatus = () => replies().last().getAttribute("data-status", { timeout: 5_000 }).catch(() => null);
  const send = async (text: string): Promise<void> => {
    const before = await replies().count();
    const composer = chat.locator("[data-testid=composer]");
    await composer.fill(text, { timeout: 120_000 });
    await composer.press("Enter");
    await poll("the reply", async () => [await replies().count(), await lastStatus()] as const, ([n, s]) => n === before + 1 && s === "complete", 5 * 60_000);
  };
  /** The variant the model details name, and the variant libraries mapped under code-server. */
  const loadedVariant = async (): Promise<{ named: string; mapped: string[] }> => {
    const details = (await chat.locator("[data-testid=model-status]").getAttribute("title")) ?? "";
    console.log(`model details: ${details}`);
    const named = DETAILS_VARIANT.exec(details)?.[1];
    assert.ok(named, `the model details name no CPU variant of our portable build: ${details}`);
    const mapped = mappedLibraries(session!.server.pid, VARIANT_LIBRARY).filter((path) => !path.endsWith(" (deleted)"));
    console.log(`CPU variant libraries mapped under code-server: ${mapped.join(", ") || "none"}`);
    return { named, mapped };
  };
  const guarded = async (name: string, body: () => Promise<void>): Promise<void> => {
    try {
      await body();
    } catch (error) {
      await shot(`failed-${name}`).catch(() => undefined);
      await withDiagnostics(session!, error);
    }
  };

  before(async () => {
    const vsix = await vsixFor(repoRoot, join(repoRoot, ".cache", "e2e", "cpu-variants.vsix"), log);
    variants = shippedVariants(vsix.path);
    if (variants.length === 0) return;
    log(`the VSIX carries our portable build: ${variants.length} CPU variants (${variants.join(", ")})`);
    session = await startE2ESession("cpu-variants");
    page = session.browser.page;
    chat = chatFrame(page);
  });
  after(async () => {
    await session?.close();
  });

  const skipReason = () =>
    variants.length === 0 ? "the VSIX carries no portable build of ours (node out/cli.js build-llama --portable, about 18 min on 2 cores; npm test builds the native one only)" : undefined;

  it("answers with our build on the best CPU variant this CPU runs, named in the model details", { timeout: STEP_TIMEOUT }, async (t) => {
    const reason = skipReason();
    if (reason) return t.skip(reason);
    await guarded("best", async () => {
      await runFromPalette(page, "Stateful Chat: New Chat");
      await send("Say hello.");
      const { named, mapped } = await loadedVariant();
      assert.ok(variants.includes(named), `${named} is not one of the shipped variants`);
      assert.equal(mapped.length, 1, `expected one CPU variant library mapped, got ${mapped.join(", ")}`);
      assert.ok(mapped[0]!.startsWith(`${session!.extensionsDir}/`) && mapped[0]!.endsWith(`/libggml-cpu-${named}.so`), `mapped ${mapped[0]}, not the installed extension's ${named}`);
      first = named;
      firstLibrary = mapped[0];
      await shot("best");
    });
  });

  it("with that variant's library removed, answers on the next lower variant", { timeout: STEP_TIMEOUT }, async (t) => {
    const reason = skipReason() ?? (first ? undefined : "the first step found no variant");
    if (reason) return t.skip(reason);
    await guarded("lower", async () => {
      rmSync(firstLibrary!);
      // A window reload restarts the extension host; its engine process exits with it.
      await page.reload();
      await waitForWorkbench(page);
      const oldEngine = () => mappedLibraries(session!.server.pid, VARIANT_LIBRARY).filter((path) => path.endsWith(`libggml-cpu-${first}.so (deleted)`));
      await poll("the old engine to exit", () => Promise.resolve(oldEngine().length), (n) => n === 0, 2 * 60_000);
      chat = chatFrame(page);
      await chat.locator("[data-testid=composer]").waitFor({ timeout: 120_000 });
      await send("Say goodbye.");
      const { named, mapped } = await loadedVariant();
      assert.notEqual(named, first, "the removed variant is still named");
      assert.ok(variants.includes(named), `${named} is not one of the shipped variants`);
      assert.equal(mapped.length, 1, `expected one CPU variant library mapped, got ${mapped.join(", ")}`);
      assert.equal(mapped[0], join(dirname(firstLibrary!), `libggml-cpu-${named}.so`), "not our build's library beside the removed one");
      log(`without ${first}, ggml chose ${named}`);
      await shot("lower");
    });
  });
});
