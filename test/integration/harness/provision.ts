// Everything the browser-driven suites need on a fresh machine, installed idempotently:
// the built extension, the default model, Node 24 + code-server, Debian chromium.

import { join } from "node:path";
import { ensureChromium } from "../../../src/tools/launcher/apt";
import { launcherPaths, type LauncherPaths } from "../../../src/tools/launcher/paths";
import { runCommand } from "../../../src/tools/launcher/run-command";
import { ensureCodeServer, type Toolchain } from "../../../src/tools/launcher/toolchain";
import { ensureBuilt } from "../../../src/tools/launcher/vsix";
import { defaultModelPath } from "../../../src/extension/models/default-model";

export interface Provisioned {
  readonly paths: LauncherPaths;
  readonly toolchain: Toolchain;
  readonly chromium: string;
  readonly modelPath: string;
}

export const log = (line: string): void => console.log(`[harness] ${line}`);

export async function provision(): Promise<Provisioned> {
  const paths = launcherPaths();
  await ensureBuilt(paths.repo, log);
  await runCommand(process.execPath, [join(paths.repo, "out", "cli.js"), "fetch-model"], { cwd: paths.repo });
  const toolchain = await ensureCodeServer(paths, log);
  const chromium = await ensureChromium(log);
  return { paths, toolchain, chromium, modelPath: process.env.STATEFUL_CHAT_MODEL ?? defaultModelPath(paths.repo) };
}
