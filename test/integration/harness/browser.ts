// Debian chromium driven by playwright-core, in a throwaway profile. These flags keep it
// quiet and offline-friendly on a headless 2-core box.

import { mkdirSync, rmSync } from "node:fs";
import { chromium, type BrowserContext, type Page } from "playwright-core";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(executablePath: string, profileDir: string): Promise<Browser> {
  rmSync(profileDir, { recursive: true, force: true });
  mkdirSync(profileDir, { recursive: true });
  // A persistent context is how playwright wants a profile dir (never --user-data-dir in args).
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath,
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close().catch(() => undefined);
    },
  };
}
