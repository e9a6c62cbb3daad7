// `node --import tsx src/tools/launcher/provision-cli.ts [--chromium]`: provisioning only,
// for CI steps and test scripts that want the toolchain ready before timing anything.

import { ensureChromium } from "./apt";
import { launcherPaths } from "./paths";
import { ensureCodeServer } from "./toolchain";

async function main(): Promise<void> {
  const log = (line: string): void => console.log(`[provision] ${line}`);
  await ensureCodeServer(launcherPaths(), log);
  if (process.argv.includes("--chromium")) log(`chromium: ${await ensureChromium(log)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
