// `node --import tsx test/e2e/support/package-shared-vsix.ts PATH`: packages the VSIX the e2e
// sessions of one npm test run share (shared-vsix.ts).

import { resolve } from "node:path";
import { packageVsix } from "../../../src/tools/launcher/vsix";
import { repoRoot } from "../../support/default-model";

const out = process.argv[2];
if (!out) {
  console.error("usage: node --import tsx test/e2e/support/package-shared-vsix.ts PATH");
  process.exit(2);
}
packageVsix(repoRoot, resolve(out), (line) => console.log(line)).then(
  (vsix) => console.log(`${vsix.path}: ${(vsix.bytes / 1e6).toFixed(1)} MB`),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
