// The composer: Enter / Shift+Enter / Escape, Send, Stop, Reset, queued count, kept draft.
import assert from "node:assert/strict";
import { after, before, beforeEach, afterEach, describe, it } from "node:test";
import { init, WebviewHarness, type ChatPage } from "./harness";

describe("webview composer", () => {
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

  const sent = async () => (await chat.posted()).filter((m) => m.type === "send");
  const stops = async () => (await chat.posted()).filter((m) => m.type === "stop").length;

  it("Enter sends, Shift+Enter inserts a newline, and the box is cleared", async () => {
    const composer = chat.page.getByTestId("composer");
    await composer.click();
    await composer.pressSequentially("first line");
    await composer.press("Shift+Enter");
    await composer.pressSequentially("second line");
    assert.deepEqual(await sent(), []);
    await composer.press("Enter");
    assert.deepEqual(await sent(), [{ type: "send", text: "first line\nsecond line" }]);
    assert.equal(await composer.inputValue(), "");
  });

  it("does not send empty or whitespace-only input", async () => {
    const composer = chat.page.getByTestId("composer");
    await composer.press("Enter");
    await composer.fill("   \n\t  ");
    await composer.press("Enter");
    await chat.page.getByTestId("send").click();
    assert.deepEqual(await sent(), []);
  });

  it("the Send button sends", async () => {
    await chat.page.getByTestId("composer").fill("via button");
    await chat.page.getByTestId("send").click();
    assert.deepEqual(await sent(), [{ type: "send", text: "via button" }]);
  });

  it("Stop is visible only while busy; Escape stops only while busy", async () => {
    const stop = chat.page.getByTestId("stop");
    const composer = chat.page.getByTestId("composer");
    assert.equal(await stop.count(), 1);
    assert.equal(await stop.isVisible(), false);
    await composer.press("Escape");
    assert.equal(await stops(), 0);

    await chat.push({ type: "busy", busy: true, queued: 0 });
    assert.equal(await stop.isVisible(), true);
    await composer.press("Escape");
    await stop.click();
    assert.equal(await stops(), 2);

    await chat.push({ type: "busy", busy: false, queued: 0 });
    assert.equal(await stop.isVisible(), false);
  });

  it("sending while busy is allowed and the queued count is shown", async () => {
    await chat.push({ type: "busy", busy: true, queued: 0 });
    await chat.page.getByTestId("composer").fill("next question");
    await chat.page.getByTestId("composer").press("Enter");
    assert.deepEqual(await sent(), [{ type: "send", text: "next question" }]);
    await chat.push({ type: "busy", busy: true, queued: 2 });
    assert.equal(await chat.page.locator(".queued").textContent(), "2 queued");
    await chat.push({ type: "busy", busy: false, queued: 0 });
    assert.equal(await chat.page.locator(".queued").textContent(), "");
  });

  it("Reset posts reset", async () => {
    await chat.page.getByTestId("reset").click();
    assert.deepEqual((await chat.posted()).filter((m) => m.type === "reset"), [{ type: "reset" }]);
    assert.equal(await chat.page.getByTestId("reset").getAttribute("aria-label"), "Reset conversation");
  });

  it("keeps the draft when the panel is hidden and shown again (reloaded)", async () => {
    await chat.page.getByTestId("composer").fill("half-written thought");
    await chat.page.reload();
    await chat.waitForPosted((m) => m.type === "ready");
    assert.equal(await chat.page.getByTestId("composer").inputValue(), "half-written thought");
  });
});
