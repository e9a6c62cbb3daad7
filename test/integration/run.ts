// `npm run test:integration`: the suite in test/integration/suite runs inside the real
// extension host of code-server (VS Code 1.139 server + web workbench), driven by Debian
// chromium. Provisions what it needs first, so it works on a fresh machine after `npm ci`.
// Exits non-zero on failure or when no result arrives in time.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startCodeServer, type RunningCodeServer } from "../../src/tools/launcher/code-server";
import { prepareScratch } from "../../src/tools/launcher/scratch";
import { defaultSettings, writeUserSettings } from "../../src/tools/launcher/user-settings";
import { launchBrowser, type Browser } from "./harness/browser";
import { log, provision } from "./harness/provision";
import { makeWorkspace } from "./harness/scratch-workspace";
import { compileSuite } from "./compile-suite";
import { fixtureModel } from "../support/fixture-models";
import { DESKTOP_SAVE_SETTINGS } from "../support/workbench-settings";
import { runInExtensionHost } from "./smoke-driver";

/**
 * Short replies, and one llama.cpp thread: with one thread per core (the default) on a 2-core
 * box shared with other jobs, decoding collapsed to ~5 tokens/s (this suite: 3 min instead of
 * 16 s). Nothing here asserts speed, so this only saves CI time.
 */
const TEST_MODEL_SETTINGS = { "statefulChat.maxNewTokens": 96, "statefulChat.threads": 1 };

// 20 min: the suite grew (VS Code Chat, Apply) and shares the machine with the background llama-server build.
const TIMEOUT_MS = Number(process.env.STATEFUL_CHAT_INTEGRATION_TIMEOUT_MS ?? 20 * 60_000);

async function main(): Promise<number> {
  const setupStarted = Date.now();
  const { paths, toolchain, chromium, modelPath } = await provision();
  const testsPath = await compileSuite(paths.repo);
  const scratch = prepareScratch(paths.runs, process.env.STATEFUL_CHAT_SCRATCH_NAME ?? "integration", true);
  const folder = makeWorkspace(scratch.root);
  // A throwaway workspace: trust off, so no trust prompt and no Restricted Mode (npm start keeps trust on).
  writeUserSettings(scratch.userDataDir, { ...defaultSettings(modelPath, { disableWorkspaceTrust: true }), ...DESKTOP_SAVE_SETTINGS, ...TEST_MODEL_SETTINGS });
  const report = join(scratch.root, "mocha-report.txt");
  log(`setup took ${Math.round((Date.now() - setupStarted) / 1000)} s`);

  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  const started = Date.now();
  try {
    server = await startCodeServer({
      toolchain,
      scratch,
      folder,
      disableWorkspaceTrust: true,
      extraArgs: ["--vscode-option", "enable-smoke-test-driver"],
      // The chat provider suite's tool-template model (a copy of the default model, written once).
      env: { STATEFUL_CHAT_TEST_REPORT: report, STATEFUL_CHAT_TOOLS_MODEL: fixtureModel("qwen-tools") },
    });
    browser = await launchBrowser(chromium, join(scratch.root, "chromium"));
    const result = await runInExtensionHost(browser.page, {
      origin: server.origin,
      folder,
      extensionDevelopmentPath: paths.repo,
      extensionTestsPath: testsPath,
      timeoutMs: TIMEOUT_MS,
    });
    if (existsSync(report) && readFileSync(report, "utf8").trim()) console.log(readFileSync(report, "utf8"));
    else console.log(result.logs.join("\n"));
    if (result.exitCode !== 0) {
      console.error(`\nextension host logs:\n${result.logs.slice(-60).join("\n")}`);
      console.error(`code-server log: ${server.logFile}`);
    }
    log(`integration suite: exit ${result.exitCode} after ${Math.round((Date.now() - started) / 1000)} s`);
    return result.exitCode;
  } finally {
    await browser?.close();
    await server?.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
