// Apply's reading of a reply: fenced blocks (CommonMark fences), the file a block names in its
// info string or on the line before it, "the whole file" in the text before it, and where a
// named path is in the workspace (inside it, never above it).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { codeBlocksOf, findBlock, namedFiles } from "../../src/extension/core/apply/code-blocks";
import { languageFromInfo, matchWorkspacePaths, normalizeRelative, pathFromInfo, pathFromLine, relativeToRoots } from "../../src/extension/core/apply/paths";

describe("code blocks of a reply", () => {
  it("reads fences with their info strings, code and the path they name", () => {
    const reply = [
      "Change the limit:",
      "",
      "```ts src/limits.ts",
      "export const MAX = 10;",
      "```",
      "",
      "**src/other.py**",
      "```python",
      "def f():",
      "    return 1",
      "```",
      "",
      "~~~",
      "plain ``` not a close",
      "~~~",
    ].join("\n");
    const blocks = codeBlocksOf(reply);
    assert.equal(blocks.length, 3);
    assert.deepEqual(
      blocks.map((b) => [b.index, b.language, b.path, b.pathFrom, b.code]),
      [
        [0, "ts", "src/limits.ts", "info", "export const MAX = 10;"],
        [1, "python", "src/other.py", "line", "def f():\n    return 1"],
        [2, "", undefined, undefined, "plain ``` not a close"],
      ],
    );
    assert.deepEqual(namedFiles(blocks), ["src/limits.ts", "src/other.py"]);
  });

  it("an unclosed fence runs to the end; a longer fence needs a closing fence as long; indented fences lose their indentation", () => {
    const [cut] = codeBlocksOf("```js\nconst a = 1;\nconst b");
    assert.equal(cut!.unclosed, true);
    assert.equal(cut!.code, "const a = 1;\nconst b");
    const [long] = codeBlocksOf("````md\n```ts\nx\n```\n````");
    assert.equal(long!.code, "```ts\nx\n```");
    const [indented] = codeBlocksOf("1. Step\n   ```ts\n   const x = 1;\n     y();\n   ```");
    assert.equal(indented!.code, "const x = 1;\n  y();");
  });

  it("says whether the text before a block calls it the whole file", () => {
    const says = (before: string) => codeBlocksOf(`${before}\n\`\`\`ts\nx\n\`\`\``)[0]!.saysWholeFile;
    assert.equal(says("Here is the complete updated file:"), true);
    assert.equal(says("The full code of `src/a.ts`:"), true);
    assert.equal(says("Replace the function with this:"), false);
  });

  it("finds the clicked block by its code when the webview counts blocks differently", () => {
    const blocks = codeBlocksOf("```ts\na\n```\n\n```ts\nb\n```\n\n```ts\na\n```");
    assert.equal(findBlock(blocks, 2, "a")!.index, 2);
    assert.equal(findBlock(blocks, 1, "a")!.index, 0);
    assert.equal(findBlock(blocks, 0, "zzz"), undefined);
    assert.equal(findBlock(blocks, 1, "b\n")!.index, 1);
  });
});

describe("paths named by a block", () => {
  it("in the info string", () => {
    assert.equal(pathFromInfo("ts src/limits.ts"), "src/limits.ts");
    assert.equal(pathFromInfo("src/limits.ts"), "src/limits.ts");
    assert.equal(pathFromInfo("typescript:src/limits.ts"), "src/limits.ts");
    assert.equal(pathFromInfo('ts title="src/limits.ts"'), "src/limits.ts");
    assert.equal(pathFromInfo("python file=app/main.py"), "app/main.py");
    assert.equal(pathFromInfo("ts"), undefined);
    assert.equal(pathFromInfo("c++"), undefined);
    assert.equal(pathFromInfo("python 3.11"), undefined);
    assert.equal(pathFromInfo(""), undefined);
    assert.equal(languageFromInfo("ts src/a.ts"), "ts");
    assert.equal(languageFromInfo("src/a.ts"), "");
    assert.equal(languageFromInfo("TypeScript:src/a.ts"), "typescript");
  });

  it("alone on the line before, with the decoration models add", () => {
    for (const line of ["src/limits.ts", "`src/limits.ts`", "**src/limits.ts**", "**`src/limits.ts`:**", "// src/limits.ts", "### src/limits.ts", "File: src/limits.ts", "src/limits.ts:", "- `src/limits.ts`"]) {
      assert.equal(pathFromLine(line), "src/limits.ts", line);
    }
    for (const line of ["Here is the change to src/limits.ts:", "Use version 1.5", "e.g.", "", "Done."]) assert.equal(pathFromLine(line), undefined, line);
    assert.equal(pathFromLine("Makefile"), "Makefile");
    assert.equal(pathFromLine(".gitignore"), ".gitignore");
  });

  it("stay inside the workspace folder: ../ is refused, absolute paths only inside a root", () => {
    assert.deepEqual(normalizeRelative("./src/../lib/a.ts"), { ok: true, path: "lib/a.ts" });
    assert.deepEqual(normalizeRelative("src\\a.ts"), { ok: true, path: "src/a.ts" });
    assert.deepEqual(normalizeRelative("../outside.ts"), { ok: false, reason: "outside" });
    assert.deepEqual(normalizeRelative("src/../../x.ts"), { ok: false, reason: "outside" });
    assert.deepEqual(normalizeRelative("/etc/passwd"), { ok: false, reason: "absolute" });
    assert.deepEqual(normalizeRelative("C:\\x\\a.ts"), { ok: false, reason: "absolute" });
    assert.deepEqual(relativeToRoots("/work/ws/src/a.ts", ["/work/other", "/work/ws"]), { root: "/work/ws", path: "src/a.ts" });
    assert.equal(relativeToRoots("/work/ws2/a.ts", ["/work/ws"]), undefined);
    assert.equal(relativeToRoots("/etc/passwd", ["/work/ws"]), undefined);
    assert.deepEqual(relativeToRoots("c:\\Work\\WS\\a.ts", ["C:\\work\\ws"]), { root: "C:\\work\\ws", path: "a.ts" });
  });

  it("a name without its folders matches the one workspace file it can mean", () => {
    const paths = ["src/limits.ts", "src/a/util.ts", "lib/util.ts", "limitsX.ts"];
    assert.deepEqual(matchWorkspacePaths("limits.ts", paths), ["src/limits.ts"]);
    assert.deepEqual(matchWorkspacePaths("util.ts", paths), ["src/a/util.ts", "lib/util.ts"]);
    assert.deepEqual(matchWorkspacePaths("src/limits.ts", paths), ["src/limits.ts"]);
    assert.deepEqual(matchWorkspacePaths("new.ts", paths), []);
  });
});
