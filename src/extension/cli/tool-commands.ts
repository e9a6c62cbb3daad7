// The CLI's development commands (build-llama, test-flash-attn, bench --peers, analyze-requests)
// live with the tooling in src/tools/ and ship as out/tools.js beside this CLI in a checkout,
// never in the extension: the product loads that bundle only when such a command is run, and
// imports none of its code.

import { existsSync } from "node:fs";
import { join } from "node:path";

/** The one list of development commands; src/tools/cli/main.ts serves each (its switch is exhaustive over this type). */
const DEVELOPMENT_COMMANDS = ["analyze-requests", "bench-peers", "build-llama", "build-peer-server", "test-flash-attn"] as const;
export type DevelopmentCommand = (typeof DEVELOPMENT_COMMANDS)[number];

export function isDevelopmentCommand(name: string | undefined): name is DevelopmentCommand {
  return (DEVELOPMENT_COMMANDS as readonly (string | undefined)[]).includes(name);
}

export async function runDevelopmentCommand(command: DevelopmentCommand, args: string[]): Promise<number> {
  const bundle = join(__dirname, "tools.js");
  if (!existsSync(bundle)) {
    process.stderr.write(`"${command}" is a development command: run it from a checkout of Stateful Chat after "npm run build".\n`);
    return 2;
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tools = require(bundle) as { runTool(command: DevelopmentCommand, args: string[]): Promise<number> };
  return tools.runTool(command, args);
}
