// One end-to-end environment: code-server with the extension installed from a freshly
// packaged VSIX (the user's path, node_modules and all), plus a chromium page on its workbench.

import { join } from "node:path";
import { installExtension, startCodeServer, type RunningCodeServer } from "../../../src/extension/launcher/code-server";
import { prepareScratch } from "../../../src/extension/launcher/scratch";
import { defaultSettings, writeUserSettings } from "../../../src/extension/launcher/user-settings";
import { packageVsix } from "../../../src/extension/launcher/vsix";
import { launchBrowser, type Browser } from "../../integration/harness/browser";
import { log, provision } from "../../integration/harness/provision";
import { makeWorkspace } from "../../integration/harness/scratch-workspace";
import { waitForWorkbench } from "./workbench";

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
  close(): Promise<void>;
}

export async function startE2ESession(name: string): Promise<E2ESession> {
  const { paths, toolchain, chromium, modelPath } = await provision();
  const scratch = prepareScratch(paths.runs, `e2e-${name}`, true);
  const folder = makeWorkspace(scratch.root);
  const vsix = await packageVsix(paths.repo, join(scratch.root, "stateful-chat.vsix"), log);
  log(`VSIX ${(vsix.bytes / 1e6).toFixed(1)} MB`);
  await installExtension(toolchain, scratch, vsix.path);
  // One llama.cpp thread: one per core (the default) collapses decoding on a shared 2-core box.
  // Replies up to 256 tokens: long enough to watch them grow and to stop one mid-way.
  writeUserSettings(scratch.userDataDir, {
    ...defaultSettings(modelPath),
    ...QUIET_WORKBENCH,
    "statefulChat.maxNewTokens": 256,
    "statefulChat.threads": 1,
  });
  const server = await startCodeServer({ toolchain, scratch, folder });
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
  return {
    browser: opened,
    server,
    artifacts: join(paths.repo, "test-artifacts"),
    folder,
    close: async () => {
      await opened.close();
      await server.stop();
    },
  };
}
