// One end-to-end environment: code-server with the extension installed from a freshly
// packaged VSIX (the user's path) — or, with STATEFUL_CHAT_E2E_DEV=1, loaded from the repo as
// extensionDevelopmentPath (no packaging) — plus a chromium page on its workbench.

import { join } from "node:path";
import { installExtension, startCodeServer, type RunningCodeServer } from "../../../src/extension/launcher/code-server";
import { prepareScratch } from "../../../src/extension/launcher/scratch";
import { defaultSettings, writeUserSettings } from "../../../src/extension/launcher/user-settings";
import { packageVsix } from "../../../src/extension/launcher/vsix";
import { launchBrowser, type Browser } from "../../integration/harness/browser";
import { log, provision } from "../../integration/harness/provision";
import { makeWorkspace } from "../../integration/harness/scratch-workspace";
import { waitForWorkbench } from "./workbench";

export interface E2ESession {
  readonly browser: Browser;
  readonly server: RunningCodeServer;
  readonly artifacts: string;
  close(): Promise<void>;
}

export async function startE2ESession(name: string): Promise<E2ESession> {
  const { paths, toolchain, chromium, modelPath } = await provision();
  const scratch = prepareScratch(paths.runs, `e2e-${name}`, true);
  const folder = makeWorkspace(scratch.root);
  const dev = process.env.STATEFUL_CHAT_E2E_DEV === "1";
  if (!dev) {
    const vsix = await packageVsix(paths.repo, join(scratch.root, "stateful-chat.vsix"), log);
    log(`VSIX ${(vsix.bytes / 1e6).toFixed(1)} MB`);
    await installExtension(toolchain, scratch, vsix.path);
  }
  writeUserSettings(scratch.userDataDir, defaultSettings(modelPath));
  const server = await startCodeServer({ toolchain, scratch, folder });
  // Dev mode loads the repo itself, as a developer's F5 would (the workbench's URL payload).
  const payload = [["extensionDevelopmentPath", `vscode-remote://${new URL(server.origin).host}${paths.repo}`]];
  const url = dev ? `${server.url(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}` : server.url(folder);
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser(chromium, join(scratch.root, "chromium"));
    await browser.page.goto(url);
    await waitForWorkbench(browser.page);
  } catch (error) {
    await browser?.close();
    await server.stop();
    throw error;
  }
  const opened = browser;
  return {
    browser: opened,
    server,
    artifacts: join(paths.repo, "test-artifacts"),
    close: async () => {
      await opened.close();
      await server.stop();
    },
  };
}
