// vsce packages README.md into the VSIX and refuses relative links and SVG images when the
// repository URL is unknown; `npm start` and the VSIX tests then fail at packaging.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
const links = [...readme.matchAll(/!?\[[^\]]*\]\(([^)\s]+)[^)]*\)/g)].map((m) => ({ text: m[0], url: m[1] }));

test("README has no relative links (vsce cannot resolve them without a repository URL)", () => {
  const relative = links.filter((l) => !/^(https?:|mailto:|#)/.test(l.url));
  assert.deepEqual(relative.map((l) => l.text), []);
});

test("README has no SVG images (vsce refuses them)", () => {
  const svg = links.filter((l) => l.text.startsWith("!") && /\.svg(\?|#|$)/i.test(l.url));
  assert.deepEqual(svg.map((l) => l.text), []);
});
