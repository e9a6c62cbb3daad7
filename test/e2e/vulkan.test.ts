// The packaged VSIX on a GPU, as a Linux user with a Vulkan driver gets it: installed in
// code-server, `statefulChat.gpu: auto`, a chat answers on the Vulkan device and the model
// details name it. The device is Mesa's llvmpipe (a real Vulkan driver computing on the CPU;
// ggml lists it only when GGML_VK_VISIBLE_DEVICES names it, which code-server's environment
// passes on to the extension host and its engine process). Every llama.cpp library the engine
// maps comes from the installed extension, so the binary is the VSIX's, not the source tree's.

import * as assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { llvmpipeEnvironment } from "../support/llvmpipe-driver";
import { journey } from "./support/journey";
import { mappedLibraries } from "./support/mapped-libraries";
import { startE2ESession, type E2ESession } from "./support/session";
import { chatFrame, poll, runFromPalette } from "./support/workbench";

const STEP_TIMEOUT = 8 * 60_000;
/** llama.cpp's own libraries and node-llama-cpp's addon, whichever build or backend served. */
const LLAMA_LIBRARIES = /^(libggml|libllama|llama-addon)/;

describe("the VSIX on Vulkan (llvmpipe)", { timeout: 20 * 60_000 }, () => {
  let session: E2ESession;
  let page: Page;
  let chat: FrameLocator;

  const shot = async (name: string): Promise<void> => {
    mkdirSync(session.artifacts, { recursive: true });
    await page.screenshot({ path: join(session.artifacts, `e2e-vulkan-${name}.png`) });
  };
  const lastAssistant = () => chat.locator("[data-testid=entry][data-role=assistant]").last();
  const statusOfLastReply = () => lastAssistant().getAttribute("data-status", { timeout: 5_000 }).catch(() => null);
  const step = journey(() => session, shot, STEP_TIMEOUT);

  before(async () => {
    // Short replies: llvmpipe runs every kernel on the CPU.
    session = await startE2ESession("vulkan", { "statefulChat.gpu": "auto", "statefulChat.maxNewTokens": 48 }, llvmpipeEnvironment());
    page = session.browser.page;
    chat = chatFrame(page);
  });
  after(async () => {
    await session?.close();
  });

  step("answers a chat with the model on the Vulkan device, named in the model details", async () => {
    await runFromPalette(page, "Stateful Chat: New Chat");
    const composer = chat.locator("[data-testid=composer]");
    await composer.waitFor({ timeout: 120_000 });
    await composer.fill("Name three sorting algorithms.");
    await composer.press("Enter");
    await poll("the reply to complete", statusOfLastReply, (s) => s === "complete", 6 * 60_000);
    await shot("answered");
    const text = (await lastAssistant().locator(".entry-body").textContent()) ?? "";
    assert.ok(text.trim().length > 0, "empty reply");
    const details = (await chat.locator("[data-testid=model-status]").getAttribute("title")) ?? "";
    console.log(`model details: ${details}`);
    assert.match(details, /Vulkan/, "the model details do not say Vulkan");
    assert.match(details, /llvmpipe/, "the model details do not name the device");
  });

  step("runs llama.cpp's Vulkan binary from the installed VSIX", () => {
    const libraries = mappedLibraries(session.server.pid, LLAMA_LIBRARIES);
    console.log(`llama.cpp libraries mapped under code-server:\n  ${libraries.join("\n  ")}`);
    assert.ok(libraries.some((path) => /libggml-vulkan/.test(path)), "no process under code-server mapped libggml-vulkan");
    const outside = libraries.filter((path) => !path.startsWith(`${session.extensionsDir}/`));
    assert.deepEqual(outside, [], `llama.cpp libraries mapped from outside the installed extension (${session.extensionsDir})`);
    return Promise.resolve();
  });
});
