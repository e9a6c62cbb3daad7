// Apply on the chat's code blocks, in the real bundle: an Apply button beside Copy and Insert
// on every block of the answer (none while the reply streams), each with its word beside its
// icon, posting the reply, the block's position and its code; Apply All on a reply whose
// blocks name several files; the host's word shown on the block (reverted after an undo that
// followed Keep), with Stop while it works and Fast Apply when it is offered.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { init, WebviewHarness, type ChatPage } from "./harness";

const REPLY = [
  "Change both files:",
  "",
  "```ts src/limits.ts",
  "export const MAX = 20;",
  "```",
  "",
  "**src/other.ts**",
  "```ts",
  "export const other = 1;",
  "```",
].join("\n");

describe("webview Apply", () => {
  let harness: WebviewHarness;
  let chat: ChatPage;

  before(async () => {
    harness = await WebviewHarness.start();
  });
  after(async () => {
    await harness.stop();
  });
  afterEach(async () => {
    assert.deepEqual(chat.errors, []);
    assert.deepEqual(await chat.cspViolations(), []);
    await chat.close();
  });

  it("Apply posts the reply, the block's position and its code; the host's answer shows on the block", async () => {
    chat = await harness.open();
    await chat.push(init([{ id: "a1", role: "assistant", text: REPLY, status: "complete" }]));
    const blocks = chat.entry("a1").locator(".code-block");
    assert.equal(await blocks.count(), 2);
    assert.equal(await blocks.nth(0).getByTestId("apply-code").getAttribute("aria-label"), "Apply to the Workspace");
    await blocks.nth(1).getByTestId("apply-code").click();
    assert.deepEqual(await chat.waitForPosted((m) => m.type === "applyCode"), { type: "applyCode", entryId: "a1", block: 1, code: "export const other = 1;" });
    // Working until the host answers; Stop posts cancelApply.
    const status = blocks.nth(1).getByTestId("apply-status");
    assert.equal(await status.getAttribute("data-state"), "working");
    await status.getByTestId("apply-cancel").click();
    assert.deepEqual(await chat.waitForPosted((m) => m.type === "cancelApply"), { type: "cancelApply", entryId: "a1", block: 1 });
    await chat.push({ type: "applyState", entryId: "a1", block: 1, state: "applied", message: "Applied to src/other.ts (the whole file). Review the diff, then Keep or Undo." });
    assert.equal(await status.getAttribute("data-state"), "applied");
    assert.match((await status.textContent()) ?? "", /Applied to src\/other\.ts/);
    assert.equal(await status.getByTestId("apply-cancel").count(), 0);
    await chat.push({ type: "applyState", entryId: "a1", block: 1, state: "kept", message: "Kept in src/other.ts." });
    assert.equal(await status.getAttribute("data-state"), "kept");
    // The editor's undo after Keep: the block says so (the host follows the document).
    await chat.push({ type: "applyState", entryId: "a1", block: 1, state: "reverted", message: "Reverted in the editor after Keep: src/other.ts has its text from before Apply again." });
    assert.equal(await status.getAttribute("data-state"), "reverted");
    assert.match((await status.textContent()) ?? "", /^Reverted in the editor/);
    assert.equal(await blocks.nth(0).getByTestId("apply-status").count(), 0, "the other block says nothing");
  });

  it("a code block's buttons say what they do in words beside their icons, and Stop does too", async () => {
    chat = await harness.open();
    await chat.push(init([{ id: "a1", role: "assistant", text: REPLY, status: "complete" }]));
    const block = chat.entry("a1").locator(".code-block").nth(0);
    for (const [testId, word, icon] of [["copy-code", "Copy", "copy"], ["insert-code", "Insert", "insert"], ["apply-code", "Apply", "git-pull-request-go-to-changes"]] as const) {
      const button = block.getByTestId(testId);
      assert.equal((await button.innerText()).trim(), word, `${testId}: a visible word`);
      assert.equal(await button.locator(`.codicon-${icon}`).count(), 1, `${testId}: its codicon`);
      const box = await button.locator(".button-label").boundingBox();
      assert.ok(box && box.width > 0 && box.height > 0, `${testId}: the word is laid out, not hidden`);
    }
    await block.getByTestId("apply-code").click();
    assert.equal((await block.getByTestId("apply-cancel").innerText()).trim(), "Stop");
  });

  it("a refusal offering fast apply has a Fast Apply button that asks for it", async () => {
    chat = await harness.open();
    await chat.push(init([{ id: "a1", role: "assistant", text: REPLY, status: "complete" }]));
    await chat.push({ type: "applyState", entryId: "a1", block: 0, state: "error", message: "src/limits.ts changed since the reply. Nothing changed.", offerFast: true });
    const status = chat.entry("a1").locator(".code-block").nth(0).getByTestId("apply-status");
    assert.equal(await status.getAttribute("data-state"), "error");
    await status.getByTestId("apply-fast").click();
    assert.deepEqual(await chat.waitForPosted((m) => m.type === "applyCode"), { type: "applyCode", entryId: "a1", block: 0, code: "export const MAX = 20;", fast: true });
    // A malformed state is ignored.
    await chat.push({ type: "applyState", entryId: "a1", block: 0, state: "exploded", message: "x" });
    assert.equal(await status.getAttribute("data-state"), "working");
  });

  it("Apply All on a complete reply whose blocks name several files posts every block's code", async () => {
    chat = await harness.open();
    await chat.push(
      init([
        { id: "a1", role: "assistant", text: REPLY, status: "complete" },
        { id: "a2", role: "assistant", text: "```ts src/limits.ts\nx\n```\n\n```ts\ny\n```", status: "complete" },
      ]),
    );
    assert.equal(await chat.entry("a2").getByTestId("apply-all").count(), 0, "one file named: no Apply All");
    const all = chat.entry("a1").getByTestId("apply-all");
    assert.equal(await all.textContent(), "Apply All");
    await all.click();
    assert.deepEqual(await chat.waitForPosted((m) => m.type === "applyAll"), { type: "applyAll", entryId: "a1", codes: ["export const MAX = 20;", "export const other = 1;"] });
    assert.equal(await chat.entry("a1").getByTestId("apply-status").count(), 2);
  });

  it("no Apply while the reply streams (its last block may still grow), and none on the reasoning's code", async () => {
    chat = await harness.open();
    await chat.push(init([]), { type: "entry", entry: { id: "a1", role: "assistant", text: "", status: "streaming" } });
    await chat.push({ type: "tokens", id: "a1", text: "```ts src/a.ts\nconst a = 1;\n" });
    await chat.nextFrames();
    assert.equal(await chat.entry("a1").getByTestId("apply-code").isVisible(), false);
    await chat.push({ type: "entryDone", id: "a1", status: "complete", text: "<think>```ts\nthought\n```</think>\n```ts src/a.ts\nconst a = 1;\n```" });
    assert.equal(await chat.entry("a1").getByTestId("apply-code").count(), 1);
    assert.equal(await chat.entry("a1").getByTestId("apply-code").isVisible(), true);
  });
});
