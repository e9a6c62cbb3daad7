// One end-to-end environment: code-server with the extension installed from a freshly
// packaged VSIX (the user's path, node_modules and all), plus a chromium page on its workbench.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { installExtension, startCodeServer, type RunningCodeServer } from "../../../src/tools/launcher/code-server";
import { prepareScratch } from "../../../src/tools/launcher/scratch";
import { defaultSettings, writeUserSettings } from "../../../src/tools/launcher/user-settings";
import { DESKTOP_SAVE_SETTINGS } from "../../support/workbench-settings";
import { vsixFor } from "./shared-vsix";
import { launchBrowser, type Browser } from "../../integration/harness/browser";
import { log, provision } from "../../integration/harness/provision";
import { makeWorkspace } from "../../integration/harness/scratch-workspace";
import { waitForWorkbench } from "./workbench";

/** How much of the browser console and of the Chat view a failed step reports. */
const CONSOLE_LINES_KEPT = 30;
const CHAT_TEXT_KEPT = 1_200;

/** Keeps the built-in AI chat view and the parent-repo git prompt out of the screenshots. */
const QUIET_WORKBENCH = {
  "chat.disableAIFeatures": true,
  "git.openRepositoryInParentFolders": "never",
  "workbench.secondarySideBar.defaultVisibility": "hidden",
};

export interface E2ESession {
  readonly browser: Browser;
  readonly server: RunningCodeServer;
  readonly artifacts: string;
  /** The workspace folder the workbench has open. */
  readonly folder: string;
  /** code-server's user data (settings, logs, the extensions' global storage). */
  readonly userDataDir: string;
  /** Where code-server installed the VSIX (`--extensions-dir`). */
  readonly extensionsDir: string;
  /** What a failed step should report: the workbench's notifications and the extension's logs. */
  diagnostics(): Promise<string>;
  close(): Promise<void>;
}

/**
 * `settings` override the defaults (e.g. the built-in Chat view on, for the provider's journey);
 * `env` is added to the server's environment, which its extension host inherits (e.g. a fixture
 * OLLAMA_MODELS store).
 */
export async function startE2ESession(name: string, settings: Record<string, unknown> = {}, env: Readonly<Record<string, string>> = {}): Promise<E2ESession> {
  const { paths, toolchain, chromium, modelPath } = await provision();
  const scratch = prepareScratch(paths.runs, `e2e-${name}`, true);
  const folder = makeWorkspace(scratch.root);
  const vsix = await vsixFor(paths.repo, join(scratch.root, "stateful-chat.vsix"), log);
  log(`VSIX ${(vsix.bytes / 1e6).toFixed(1)} MB`);
  await installExtension(toolchain, scratch, vsix.path);
  // One llama.cpp thread: one per core (the default) collapses decoding on a shared 2-core box.
  // Replies up to 256 tokens: long enough to watch them grow and to stop one mid-way.
  writeUserSettings(scratch.userDataDir, {
    // A throwaway workspace: trust off, so no trust prompt sits over the workbench (npm start keeps it on).
    ...defaultSettings(modelPath, { disableWorkspaceTrust: true }),
    ...QUIET_WORKBENCH,
    ...DESKTOP_SAVE_SETTINGS,
    "statefulChat.maxNewTokens": 256,
    "statefulChat.threads": 1,
    ...settings,
  });
  const server = await startCodeServer({ toolchain, scratch, folder, env, disableWorkspaceTrust: true });
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser(chromium, join(scratch.root, "chromium"));
    await browser.page.goto(server.url(folder), { timeout: 120_000 });
    await waitForWorkbench(browser.page);
  } catch (error) {
    await browser?.close();
    await server.stop();
    throw error;
  }
  const opened = browser;
  // The workbench's own errors (VS Code's Chat logs a failed request in the browser console).
  const consoleErrors: string[] = [];
  opened.page.on("console", (message) => {
    if (message.type() !== "error" && message.type() !== "warning") return;
    consoleErrors.push(`${message.type()}: ${message.text().slice(0, 400)}`);
    if (consoleErrors.length > CONSOLE_LINES_KEPT) consoleErrors.shift();
  });
  return {
    browser: opened,
    server,
    artifacts: join(paths.repo, "test-artifacts"),
    folder,
    userDataDir: scratch.userDataDir,
    extensionsDir: scratch.extensionsDir,
    diagnostics: () => diagnostics(opened.page, join(scratch.userDataDir, "logs"), consoleErrors),
    close: async () => {
      await opened.close();
      await server.stop();
    },
  };
}

/** Every file under `dir` whose path matches `wanted` (the log folders are named by date). */
function filesUnder(dir: string, wanted: RegExp): string[] {
  try {
    return readdirSync(dir, { recursive: true, encoding: "utf8" })
      .map((name) => join(dir, name))
      .filter((path) => wanted.test(path));
  } catch {
    return [];
  }
}

function tail(path: string, lines: number, keep: (line: string) => boolean = () => true): string {
  try {
    return readFileSync(path, "utf8").split("\n").filter(keep).slice(-lines).join("\n");
  } catch (error) {
    return `(unreadable: ${String(error)})`;
  }
}

/**
 * A CI failure is seen only through the test's output: the notifications on screen, our log
 * and the extension host's errors say more than a timeout does.
 */
async function diagnostics(page: Page, logs: string, consoleErrors: readonly string[]): Promise<string> {
  const toasts = await page
    .locator(".notifications-toasts .notification-list-item-message")
    .allTextContents()
    .catch((error: unknown) => [`(could not read: ${String(error)})`]);
  const parts = [`notifications on screen: ${toasts.length === 0 ? "none" : toasts.join(" | ")}`];
  // Which views were showing: a chip that never came may be a chat view that never opened.
  const sideBar = await page.locator(".part.sidebar .composite.title").allTextContents().catch(() => []);
  const webviews = await page
    .locator("iframe.webview")
    .evaluateAll((frames) => frames.map((f) => `${f.className.includes("ready") ? "ready" : "loading"}:${/extensionId=([^&]+)/.exec(f.getAttribute("src") ?? "")?.[1] ?? "?"}`))
    .catch((error: unknown) => [`(could not read: ${String(error)})`]);
  parts.push(`side bar: ${sideBar.join(" | ").trim() || "closed"}; webviews: ${webviews.join(", ") || "none"}`);
  // VS Code's Chat view (secondary side bar): whether a question was sent, and what came back.
  const chat = await page.locator(".part.auxiliarybar").first().innerText({ timeout: 2_000 }).catch(() => "");
  if (chat.trim()) parts.push(`--- the secondary side bar (last ${CHAT_TEXT_KEPT} characters) ---\n${chat.slice(-CHAT_TEXT_KEPT)}`);
  if (consoleErrors.length > 0) parts.push(`--- browser console errors and warnings (last ${consoleErrors.length}) ---\n${consoleErrors.join("\n")}`);
  for (const path of filesUnder(logs, /stateful-chat[^/]*\/[^/]*\.log$|Stateful Chat[^/]*\.log$/)) {
    parts.push(`--- ${path.slice(logs.length + 1)} (last lines) ---\n${tail(path, 40)}`);
  }
  for (const path of filesUnder(logs, /remoteexthost\.log$|exthost\.log$/)) {
    parts.push(`--- ${path.slice(logs.length + 1)} (errors) ---\n${tail(path, 30, (line) => /\[error\]|stateful/i.test(line) && !/Creating extension host with/.test(line))}`);
  }
  return parts.join("\n");
}

/** Rethrows a failed step's error with the session's diagnostics in its message. */
export async function withDiagnostics(session: E2ESession, error: unknown): Promise<never> {
  const report = await session.diagnostics().catch((failure: unknown) => `(diagnostics failed: ${String(failure)})`);
  const message = error instanceof Error ? error.message : String(error);
  throw new Error(`${message}\n=== diagnostics ===\n${report}`, { cause: error });
}
