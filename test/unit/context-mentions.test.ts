// @-mentions: finding the mention the caret is in, parsing mentions out of a message,
// ranking workspace paths for the completion list, and the @workspace outline.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { workspaceOutline } from "../../src/extension/core/context-outline";
import { rankPaths, scorePath } from "../../src/extension/core/context-ranking";
import { applyMention, mentionQueryAt, parseMentions } from "../../src/webview/mention-query";

describe("mention parsing", () => {
  it("finds the mention the caret is in", () => {
    assert.deepEqual(mentionQueryAt("@", 1), { start: 0, query: "" });
    assert.deepEqual(mentionQueryAt("look at @src/sha", 16), { start: 8, query: "src/sha" });
    assert.deepEqual(mentionQueryAt("look at @src/sha and more", 16), { start: 8, query: "src/sha" });
    assert.deepEqual(mentionQueryAt("(@prob", 6), { start: 1, query: "prob" });
  });

  it("is no mention inside a word, after whitespace, or before the @", () => {
    assert.equal(mentionQueryAt("mail me at user@host", 20), undefined);
    assert.equal(mentionQueryAt("@file done", 10), undefined);
    assert.equal(mentionQueryAt("ab @x", 2), undefined);
    assert.equal(mentionQueryAt("", 0), undefined);
  });

  it("parses every mention of a message; trailing punctuation is not part of it", () => {
    assert.deepEqual(parseMentions("Compare @src/a.ts and @lib/b.ts, then fix @problems."), ["src/a.ts", "lib/b.ts", "problems"]);
    assert.deepEqual(parseMentions("user@host is not one; (@open) is"), ["open"]);
    assert.deepEqual(parseMentions("@ alone and @@x"), []);
  });

  it("picking replaces the partial mention and the rest of its word", () => {
    const text = "explain @sha please";
    const query = mentionQueryAt(text, 12)!;
    assert.deepEqual(applyMention(text, query, 12, "src/shapes.ts"), { text: "explain @src/shapes.ts please", caret: 23 });
    const end = applyMention("@sh", mentionQueryAt("@sh", 3)!, 3, "shapes.ts");
    assert.deepEqual(end, { text: "@shapes.ts ", caret: 11 });
  });
});

describe("completion ranking", () => {
  const paths = [
    "src/extension/shell/chat/chat-panel.ts",
    "src/webview/composer.ts",
    "src/shapes.ts",
    "test/unit/shapes.test.ts",
    "docs/shape-notes.md",
    "src/extension/core/session-queue.ts",
    "packages/s/h/a/p/e/x.ts",
  ];

  it("ranks a file-name match above folder matches and scattered letters", () => {
    const ranked = rankPaths("shapes", paths, 10).map((r) => r.path);
    assert.deepEqual(ranked.slice(0, 2), ["src/shapes.ts", "test/unit/shapes.test.ts"]);
    assert.ok(ranked.indexOf("packages/s/h/a/p/e/x.ts") > ranked.indexOf("docs/shape-notes.md"));
  });

  it("matches fuzzy subsequences and word starts, case-insensitively", () => {
    assert.equal(rankPaths("chpan", paths, 1)[0].path, "src/extension/shell/chat/chat-panel.ts");
    assert.equal(rankPaths("SQ", paths, 1)[0].path, "src/extension/core/session-queue.ts");
    assert.equal(rankPaths("webcomp", paths, 1)[0].path, "src/webview/composer.ts");
  });

  it("leaves out paths that do not contain the query and respects the limit", () => {
    assert.equal(scorePath("zzz", "src/shapes.ts"), -1);
    assert.deepEqual(rankPaths("zzz", paths, 10), []);
    assert.equal(rankPaths("", paths, 3).length, 3);
    assert.equal(rankPaths("s", paths, 2).length, 2);
  });

  it("an empty query lists short paths first", () => {
    assert.equal(rankPaths("", paths, 1)[0].path, "src/shapes.ts");
  });

  it("ranks a 10,000-file list to the same top results as a full sort", () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `pkg${i % 50}/module${i}/file${i}.ts`);
    const top = rankPaths("file42", many, 20);
    const sorted = many
      .map((path) => ({ path, score: scorePath("file42", path) }))
      .filter((r) => r.score >= 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, 20);
    assert.deepEqual(top.map((r) => r.score), sorted.map((r) => r.score));
    assert.equal(top[0].path, "pkg42/module42/file42.ts");
  });
});

describe("workspace outline", () => {
  const paths = ["README.md", "src/a.ts", "src/b.ts", "src/deep/x/y/z.ts", "test/a.test.ts"];
  const count = (t: string) => Math.ceil(t.length / 4);

  it("renders a folder tree when it fits", () => {
    const outline = workspaceOutline(paths, 1000, count);
    assert.match(outline, /^src\/\n {2}deep\//m);
    assert.match(outline, /^ {2}a\.ts$/m);
    assert.match(outline, /^README\.md$/m);
    assert.match(outline, /z\.ts/);
  });

  it("folds deep folders into counts to stay within the budget", () => {
    const many = Array.from({ length: 3000 }, (_, i) => `src/group${i % 30}/file${i}.ts`);
    const outline = workspaceOutline(many, 200, count);
    assert.ok(count(outline) <= 200, `${count(outline)} tokens`);
    assert.match(outline, /src\/ \(3000 files\)|group\d+\/ \(100 files\)/);
  });
});
