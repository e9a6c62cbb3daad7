// The extensionTestsPath module: the extension host calls run() and reports its outcome
// (rejection = exit code 1) through the workbench to the driver. Mocha's spec output is
// also written to STATEFUL_CHAT_TEST_REPORT (the host shares this machine's disk), since
// the host's console is only mirrored to the browser on a best-effort basis.

import { appendFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { format } from "node:util";
import Mocha from "mocha";

type ConsoleLog = (...args: unknown[]) => void;

export async function run(): Promise<void> {
  const report = process.env.STATEFUL_CHAT_TEST_REPORT;
  if (report) writeFileSync(report, "");
  const base = Mocha.reporters.Base as unknown as { consoleLog: ConsoleLog };
  const original = base.consoleLog;
  base.consoleLog = (...args: unknown[]) => {
    if (report) appendFileSync(report, `${format(...args)}\n`);
    original(...args);
  };
  // Real-model turns on 2 shared cores: generous per-test time, never a timing assertion.
  const mocha = new Mocha({ ui: "bdd", reporter: "spec", color: false, timeout: 5 * 60_000 });
  const grep = process.env.STATEFUL_CHAT_TEST_GREP;
  if (grep) mocha.grep(grep);
  for (const file of readdirSync(__dirname).filter((f) => f.endsWith(".test.js")).sort()) mocha.addFile(join(__dirname, file));
  const failures = await new Promise<number>((resolve) => mocha.run(resolve));
  base.consoleLog = original;
  if (failures > 0) throw new Error(`${failures} integration test(s) failed`);
}
