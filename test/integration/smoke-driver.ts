// Runs an extension test module inside code-server's real extension host, the way
// @vscode/test-web does: the workbench's smoke-test driver calls window.codeAutomationExit
// when the module's run() settles, and window.codeAutomationLog for workbench logs.

import { format } from "node:util";
import type { Page } from "playwright-core";

export interface DriverRun {
  readonly exitCode: number;
  readonly logs: readonly string[];
}

export interface DriverOptions {
  readonly origin: string;
  readonly folder: string;
  readonly extensionDevelopmentPath: string;
  readonly extensionTestsPath: string;
  readonly timeoutMs: number;
}

/** vscode-remote URIs: the paths live on the server, which is this machine. */
function remoteUri(origin: string, path: string): string {
  return `vscode-remote://${new URL(origin).host}${path}`;
}

export async function runInExtensionHost(page: Page, options: DriverOptions): Promise<DriverRun> {
  const logs: string[] = [];
  let settle: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => (settle = resolve));
  await page.exposeFunction("codeAutomationLog", (level: string, args: unknown) => {
    logs.push(`[${level}] ${Array.isArray(args) ? format(...(args as unknown[])) : String(args)}`);
  });
  await page.exposeFunction("codeAutomationExit", (code: number) => settle(code));
  page.on("console", (message) => {
    // The extension host's console (mocha's output among it) is mirrored here.
    if (message.text().includes("[Extension Host]")) logs.push(message.text());
  });
  const payload = [
    ["extensionDevelopmentPath", remoteUri(options.origin, options.extensionDevelopmentPath)],
    ["extensionTestsPath", remoteUri(options.origin, options.extensionTestsPath)],
    ["skipWelcome", "true"],
  ];
  const url = `${options.origin}/?folder=${encodeURIComponent(options.folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  await page.goto(url, { timeout: 120_000 });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<number>((resolve) => {
    timer = setTimeout(() => {
      logs.push(`[harness] no result within ${options.timeoutMs / 1000} s`);
      resolve(124);
    }, options.timeoutMs);
  });
  const exitCode = await Promise.race([exited, timeout]);
  clearTimeout(timer);
  return { exitCode, logs };
}
