// One VSIX for a whole e2e run: npm test packages it once (package-shared-vsix.ts) and names it in STATEFUL_CHAT_E2E_VSIX; each session
// installs that file instead of bundling and packaging the same bytes again (about 40 s each
// on 2 cores). A file run alone packages its own, as before.

import { existsSync, statSync } from "node:fs";
import { packageVsix, type VsixResult } from "../../../src/tools/launcher/vsix";

export const SHARED_VSIX_ENV = "STATEFUL_CHAT_E2E_VSIX";

/** The shared VSIX when npm test made one, otherwise a new one packaged at `out`. */
export async function vsixFor(repo: string, out: string, log: (line: string) => void): Promise<VsixResult> {
  const shared = process.env[SHARED_VSIX_ENV];
  if (!shared) return packageVsix(repo, out, log);
  if (!existsSync(shared)) throw new Error(`${SHARED_VSIX_ENV}=${shared}: no such file (package it first: node --import tsx test/e2e/support/package-shared-vsix.ts ${shared})`);
  log(`using the shared VSIX ${shared}`);
  return { path: shared, bytes: statSync(shared).size };
}
