// `npm start [-- --folder PATH --port N]`: a real VS Code (code-server) in the browser with
// this extension installed from a freshly packaged VSIX and the default model configured.
// Stays in the foreground; Ctrl+C stops code-server's whole process group.

import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { defaultModelPath } from "../../extension/models/default-model";
import { parseLauncherArgs, UsageError } from "./args";
import { installExtension, startCodeServer } from "./code-server";
import { launcherPaths } from "./paths";
import { runCommand } from "./run-command";
import { prepareScratch } from "./scratch";
import { ensureCodeServer } from "./toolchain";
import { defaultSettings, writeUserSettings } from "./user-settings";
import { ensureBuilt, packageVsix } from "./vsix";

const log = (line: string): void => console.log(`[stateful-chat] ${line}`);

async function main(): Promise<void> {
  const args = parseLauncherArgs(process.argv.slice(2));
  const paths = launcherPaths();
  const folder = args.folder ?? paths.repo;

  await ensureBuilt(paths.repo, log);
  log("Fetching the default model (cached after the first time)…");
  await runCommand(process.execPath, [join(paths.repo, "out", "cli.js"), "fetch-model"], { cwd: paths.repo });
  // The native build (about 4 minutes on 2 cores, against about 18 for every CPU variant): the
  // VSIX below is installed on this machine only, so it may carry it (package-target.ts).
  log("Building llama.cpp with a persistent threadpool for this machine (once; cached afterwards)…");
  await runCommand(process.execPath, [join(paths.repo, "out", "cli.js"), "build-llama"], { cwd: paths.repo });
  const toolchain = await ensureCodeServer(paths, log);

  const vsix = join(paths.repo, ".cache", "launcher", "stateful-chat.vsix");
  if (!args.skipPackage || !existsSync(vsix)) {
    const packaged = await packageVsix(paths.repo, vsix, log);
    log(`VSIX: ${(packaged.bytes / 1e6).toFixed(1)} MB`);
  }
  // Not fresh: conversations and settings survive restarts, like a real profile.
  const scratch = prepareScratch(paths.runs, "launcher", false);
  log("Installing the extension into code-server…");
  await installExtension(toolchain, scratch, vsix);
  // The installed copy has no .cache/models of its own: point it at the repo's model.
  writeUserSettings(scratch.userDataDir, defaultSettings(process.env.STATEFUL_CHAT_MODEL ?? defaultModelPath(paths.repo)));

  // A password, not `--auth none`: 127.0.0.1 is reachable by every local user of a shared host.
  const password = process.env.STATEFUL_CHAT_PASSWORD || randomBytes(12).toString("base64url");
  const server = await startCodeServer({ toolchain, scratch, folder, port: args.port, password });
  log(`Open ${server.url()}`);
  log(`Password: ${password} (set STATEFUL_CHAT_PASSWORD to choose your own)`);
  log(`(code-server log: ${server.logFile}; Ctrl+C to stop)`);

  let stopping = false;
  const shutdown = (): void => {
    stopping = true;
    log("Stopping code-server…");
    void server.stop().then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  await server.exited;
  if (stopping) return;
  log(`code-server exited on its own; see ${server.logFile}`);
  process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof UsageError ? error.message : error);
  process.exit(error instanceof UsageError ? 2 : 1);
});
