// A code block's word after Keep or Undo follows its document: Ctrl+Z after Keep brings back
// the text from before Apply, and the block says so instead of "Kept"; a redo keeps it again.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { followDocument, settledMessage } from "../../src/extension/shell/apply/follow-document";
import { SETTLED_APPLY_STATES, type SettledApplyState } from "../../src/webview/protocol/messages";

const texts = { original: "const a = 1;\n", applied: "const a = 2;\n" };

function run(start: SettledApplyState, documentTexts: readonly string[]): SettledApplyState[] {
  const states: SettledApplyState[] = [];
  let state = start;
  for (const text of documentTexts) states.push((state = followDocument(state, text, texts)));
  return states;
}

describe("Apply: a settled block follows its document", () => {
  it("kept, then the editor's undo: reverted, not Kept; the redo: kept again", () => {
    assert.deepEqual(run("kept", [texts.original, texts.applied, texts.original]), ["reverted", "kept", "reverted"]);
    assert.match(settledMessage("reverted", "src/a.ts", "followed"), /^Reverted in the editor after Keep: src\/a\.ts/);
    assert.doesNotMatch(settledMessage("reverted", "src/a.ts", "followed"), /^Kept/);
  });

  it("undone, then a redo brings the change back: kept", () => {
    assert.deepEqual(run("undone", [texts.applied]), ["kept"]);
    assert.equal(settledMessage("kept", "src/a.ts", "followed"), "Back in src/a.ts: the editor redid the change.");
  });

  it("other edits leave the block's word as it was", () => {
    assert.deepEqual(run("kept", ["const a = 3;\n", "const a = 2;\n// more\n"]), ["kept", "kept"]);
    assert.deepEqual(run("undone", ["const a = 1;\n", "x"]), ["undone", "undone"]);
    assert.deepEqual(run("reverted", ["const a = 1;\n// edited\n"]), ["reverted"]);
  });

  it("a change that left the text as it was has nothing to follow", () => {
    assert.equal(followDocument("kept", "same", { original: "same", applied: "same" }), "kept");
  });

  it("every settled state has a message naming the file", () => {
    for (const state of SETTLED_APPLY_STATES) {
      for (const how of ["settled", "followed"] as const) assert.match(settledMessage(state, "src/a.ts", how), /src\/a\.ts/);
    }
  });
});
