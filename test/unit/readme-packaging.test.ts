// The README is packaged into the VSIX (vsce runs with --no-rewrite-relative-links: its
// relative links stay as written, not rewritten to a guessed branch URL) and read on GitHub: its relative links must point at files
// that exist, and it may not hold inline <svg> tags, which vsce refuses in any case.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { VSCE_FLAGS } from "../../src/tools/packaging/package-target";

const root = join(import.meta.dirname, "..", "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const links = [...readme.matchAll(/!?\[[^\]]*\]\(([^)\s]+)[^)]*\)/g)].map((m) => ({ text: m[0], url: m[1] }));

test("README's relative links and images point at files in the repository", () => {
  const relative = links.filter((l) => !/^(https?:|mailto:|#)/.test(l.url));
  const broken = relative.filter((l) => !existsSync(join(root, decodeURI(l.url.split("#")[0]))));
  assert.deepEqual(broken.map((l) => l.text), []);
});

test("README has no inline <svg> (vsce refuses it)", () => {
  assert.doesNotMatch(readme, /<svg[\s>]/i);
});

test("the VSIX packaging keeps relative links as they are", () => {
  // Every VSIX, npm start's and the e2e suite's included, is packaged by src/tools/packaging/.
  assert.ok((VSCE_FLAGS as readonly string[]).includes("--no-rewrite-relative-links"));
  const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  for (const script of ["package", "package:all"]) assert.match(scripts[script], /src\/tools\/packaging\/main\.ts/);
  assert.doesNotMatch(readFileSync(join(root, "src", "tools", "launcher", "vsix.ts"), "utf8"), /"package"/, "launcher/vsix.ts runs vsce itself");
});

test("the packaging ships a license and no longer skips it", () => {
  assert.ok(existsSync(join(root, "LICENSE")));
  assert.ok(!(VSCE_FLAGS as readonly string[]).includes("--skip-license"));
});
