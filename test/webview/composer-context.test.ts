// The composer's context: chips above the input (state, tokens, remove, pin, active-file
// switch), the message sent with exactly the chips on screen, and the @-mention list.
import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import type { ComposerChip, WebviewToHost } from "../../src/webview/protocol/messages";
import { init, WebviewHarness, type ChatPage } from "./harness";

const chip = (id: string, extra: Partial<ComposerChip> = {}): ComposerChip => ({
  id,
  label: id.replace(/^file:/, ""),
  kind: "file",
  state: "new",
  tokens: 100,
  origin: "auto",
  pinnable: true,
  ...extra,
});

describe("webview composer context", () => {
  let harness: WebviewHarness;
  let chat: ChatPage;

  before(async () => {
    harness = await WebviewHarness.start();
  });
  after(async () => {
    await harness.stop();
  });
  beforeEach(async () => {
    chat = await harness.open();
    await chat.push(init([]));
  });
  afterEach(async () => {
    assert.deepEqual(chat.errors, []);
    await chat.close();
  });

  const of = async <T extends WebviewToHost["type"]>(type: T) => (await chat.posted()).filter((m): m is Extract<WebviewToHost, { type: T }> => m.type === type);
  const chips = () => chat.page.getByTestId("composer-chip");

  it("shows each chip with its state and tokens; known ones cost nothing", async () => {
    await chat.push({
      type: "composerContext",
      activeFileOff: false,
      chips: [chip("file:src/a.ts"), chip("selection", { kind: "selection", label: "Selection in a.ts", tokens: 20, pinnable: false }), chip("file:lib/b.ts", { state: "known", tokens: 0, origin: "pinned" }), chip("file:.env", { state: "skipped", tokens: 0, detail: "looks like a secrets file", origin: "mention", pinnable: false })],
    });
    assert.equal(await chips().count(), 4);
    assert.deepEqual(await chips().evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.state)), ["new", "new", "known", "skipped"]);
    assert.deepEqual(await chat.page.getByTestId("chip-cost").allTextContents(), ["100 tok", "20 tok", "known", "looks like a secrets file"]);
    assert.equal(await chat.page.getByTestId("context-total").textContent(), "120 tokens of context");
    assert.equal(await chips().nth(2).locator(".codicon-pinned").count(), 1, "a pinned chip shows it");
    assert.equal(await chips().nth(0).getByTestId("chip-active-off").count(), 1, "only the active file can be switched off");
    assert.equal(await chips().nth(2).getByTestId("chip-active-off").count(), 0);
  });

  it("sends with exactly the chips on screen; a removed chip is gone at once", async () => {
    await chat.push({ type: "composerContext", activeFileOff: false, chips: [chip("file:src/a.ts"), chip("selection", { kind: "selection", pinnable: false })] });
    await chips().nth(0).getByTestId("chip-remove").click();
    assert.equal(await chips().count(), 1);
    assert.deepEqual(await of("removeChip"), [{ type: "removeChip", id: "file:src/a.ts" }]);
    const composer = chat.page.getByTestId("composer");
    await composer.fill("explain");
    await composer.press("Enter");
    assert.deepEqual(await of("send"), [{ type: "send", text: "explain", context: ["selection"] }]);
  });

  it("pins, unpins and switches the active file off and on", async () => {
    await chat.push({ type: "composerContext", activeFileOff: false, chips: [chip("file:src/a.ts"), chip("file:lib/b.ts", { origin: "pinned" })] });
    await chips().nth(0).getByTestId("chip-pin").click();
    await chips().nth(1).getByTestId("chip-pin").click();
    assert.deepEqual(await of("pinChip"), [{ type: "pinChip", id: "file:src/a.ts", pinned: true }, { type: "pinChip", id: "file:lib/b.ts", pinned: false }]);
    await chips().nth(0).getByTestId("chip-active-off").click();
    await chat.push({ type: "composerContext", activeFileOff: true, chips: [] });
    await chat.page.getByTestId("active-file-on").click();
    assert.deepEqual(await of("setActiveFile"), [{ type: "setActiveFile", on: false }, { type: "setActiveFile", on: true }]);
  });

  it("typing @ asks for completions; picking one inserts it and attaches it", async () => {
    const composer = chat.page.getByTestId("composer");
    await composer.click();
    await composer.pressSequentially("look at @sha");
    const queries = await of("mentionQuery");
    assert.deepEqual(queries.at(-1), { type: "mentionQuery", requestId: queries.at(-1)!.requestId, query: "sha" });
    assert.deepEqual(queries.map((q) => q.query), ["", "s", "sh", "sha"]);
    const requestId = queries.at(-1)!.requestId;
    // An answer to an older query is dropped: the user typed on.
    await chat.push({ type: "mentionResults", requestId: requestId - 1, options: [{ value: "stale.ts", label: "stale.ts", kind: "file" }] });
    assert.equal(await chat.page.getByTestId("mention-list").isVisible(), false);
    await chat.push({
      type: "mentionResults",
      requestId,
      options: [
        { value: "src/shapes.ts", label: "shapes.ts", detail: "src", kind: "file" },
        { value: "test/shapes.test.ts", label: "shapes.test.ts", detail: "test", kind: "file" },
      ],
    });
    assert.equal(await chat.page.getByTestId("mention-option").count(), 2);
    await composer.press("ArrowDown");
    await composer.press("Enter");
    assert.equal(await composer.inputValue(), "look at @test/shapes.test.ts ");
    assert.deepEqual(await of("addMention"), [{ type: "addMention", value: "test/shapes.test.ts" }]);
    assert.deepEqual(await of("send"), [], "Enter picked the mention, it did not send");
    assert.equal(await chat.page.getByTestId("mention-list").isVisible(), false);
  });

  it("Escape closes the list; a click picks; no mention inside a word", async () => {
    const composer = chat.page.getByTestId("composer");
    await composer.click();
    await composer.pressSequentially("user@host ");
    assert.deepEqual(await of("mentionQuery"), []);
    await composer.pressSequentially("@pro");
    const requestId = (await of("mentionQuery")).at(-1)!.requestId;
    await chat.push({ type: "mentionResults", requestId, options: [{ value: "problems", label: "@problems", kind: "keyword" }] });
    await composer.press("Escape");
    assert.equal(await chat.page.getByTestId("mention-list").isVisible(), false);
    await composer.pressSequentially("b");
    const again = (await of("mentionQuery")).at(-1)!.requestId;
    await chat.push({ type: "mentionResults", requestId: again, options: [{ value: "problems", label: "@problems", kind: "keyword" }] });
    await chat.page.getByTestId("mention-option").first().click();
    assert.equal(await composer.inputValue(), "user@host @problems ");
    assert.deepEqual(await of("addMention"), [{ type: "addMention", value: "problems" }]);
    assert.deepEqual(await of("stop"), [], "Escape closed the list, it did not stop anything");
  });

  it("says on the chip when a file was cut to its budget", async () => {
    await chat.push({ type: "composerContext", activeFileOff: false, chips: [chip("file:big.ts", { tokens: 512, detail: "lines 120-180 around the cursor" })] });
    assert.equal(await chat.page.getByTestId("chip-cost").textContent(), "512 tok · lines 120-180 around the cursor");
  });

  it("warns under the input about a mention that was typed out instead of picked", async () => {
    await chat.push({ type: "composerContext", activeFileOff: false, chips: [chip("file:src/a.ts", { origin: "mention" })] });
    const composer = chat.page.getByTestId("composer");
    await composer.click();
    await composer.pressSequentially("compare @src/a.ts with @src/b.ts");
    const note = chat.page.getByTestId("unattached-mentions");
    assert.equal(await note.textContent(), "", "no warning for the mention still being typed");
    await composer.pressSequentially(" please");
    assert.equal(await note.textContent(), "Not attached: @src/b.ts (pick from the @ list)");
    await chat.push({ type: "composerContext", activeFileOff: false, chips: [chip("file:src/a.ts", { origin: "mention" }), chip("file:src/b.ts", { origin: "mention" })] });
    assert.equal(await note.textContent(), "");
  });

  it("ignores malformed composer context from the host", async () => {
    await chat.push({ type: "composerContext", activeFileOff: false, chips: [chip("file:a.ts")] });
    await chat.push({ type: "composerContext", chips: "nope" }, { type: "composerContext", activeFileOff: false, chips: [{ id: 1 }] });
    assert.equal(await chips().count(), 1);
  });
});
