// The README is packaged into the VSIX (vsce runs with --no-rewrite-relative-links because
// the VSIX is never published) and read on GitHub: its relative links must point at files
// that exist, and it may not hold inline <svg> tags, which vsce refuses in any case.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

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

test("the VSIX packaging keeps relative links as they are (no repository URL to rewrite them to)", () => {
  const vsix = readFileSync(join(root, "src", "tools", "launcher", "vsix.ts"), "utf8");
  const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  assert.match(vsix, /--no-rewrite-relative-links/);
  assert.match(scripts.package, /--no-rewrite-relative-links/);
});
