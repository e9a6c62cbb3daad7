// The same suite in desktop VS Code through @vscode/test-electron, for a developer's Mac (or
// any machine with internet: it downloads VS Code into .vscode-test/ on first use). Not run
// in CI, where VS Code cannot be downloaded; there run.ts drives code-server instead.
//
//   node --import tsx test/integration/electron.ts            # latest stable VS Code
//   VSCODE_VERSION=1.104.0 node --import tsx test/integration/electron.ts
//
// On macOS 15+ with a Core ML model configured (statefulChat.modelPath in the settings this
// file writes, or STATEFUL_CHAT_MODEL), the suite exercises the Core ML backend.

import { join } from "node:path";
import { runTests } from "@vscode/test-electron";
import { launcherPaths } from "../../src/tools/launcher/paths";
import { runCommand } from "../../src/tools/launcher/run-command";
import { prepareScratch } from "../../src/tools/launcher/scratch";
import { defaultSettings, writeUserSettings } from "../../src/tools/launcher/user-settings";
import { ensureBuilt } from "../../src/tools/launcher/vsix";
import { defaultModelPath } from "../../src/extension/models/default-model";
import { makeWorkspace } from "./harness/scratch-workspace";
import { compileSuite } from "./compile-suite";

async function main(): Promise<number> {
  const paths = launcherPaths();
  await ensureBuilt(paths.repo, console.log);
  await runCommand(process.execPath, [join(paths.repo, "out", "cli.js"), "fetch-model"], { cwd: paths.repo });
  const extensionTestsPath = await compileSuite(paths.repo);
  const scratch = prepareScratch(paths.runs, "electron", true);
  const workspace = makeWorkspace(scratch.root);
  const modelPath = process.env.STATEFUL_CHAT_MODEL ?? defaultModelPath(paths.repo);
  writeUserSettings(scratch.userDataDir, { ...defaultSettings(modelPath, { disableWorkspaceTrust: true }), "statefulChat.maxNewTokens": 96 });
  const report = join(scratch.root, "mocha-report.txt");
  return runTests({
    version: process.env.VSCODE_VERSION ?? "stable",
    extensionDevelopmentPath: paths.repo,
    extensionTestsPath,
    extensionTestsEnv: { STATEFUL_CHAT_TEST_REPORT: report },
    launchArgs: [workspace, "--user-data-dir", scratch.userDataDir, "--extensions-dir", scratch.extensionsDir, "--disable-workspace-trust"],
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
