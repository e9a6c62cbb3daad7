// Host messages: entry statuses, stats line, chips, banners, model status, malformed input.
import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import type { TurnStatsView } from "../../src/webview/protocol/messages";
import { init, WebviewHarness, type ChatPage } from "./harness";

const STATS: TurnStatsView = { prefilled: 37, cached: 1204, position: 1318, capacity: 4096, ttftMs: 84, decodeTokensPerSec: 61.27, replyTokens: 77, restored: false };

describe("webview host messages", () => {
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
  });
  afterEach(async () => {
    assert.deepEqual(chat.errors, []);
    assert.deepEqual(await chat.cspViolations(), []);
    await chat.close();
  });

  it("shows the stats line, and marks restored and stopped replies", async () => {
    await chat.push(
      init([
        { id: "u1", role: "user", text: "hi", status: "complete" },
        { id: "a1", role: "assistant", text: "Hello!", status: "complete", stats: STATS },
        { id: "a2", role: "assistant", text: "Again", status: "complete", stats: { ...STATS, restored: true } },
        { id: "a3", role: "assistant", text: "Partial", status: "stopped" },
      ]),
    );
    assert.equal(await chat.entry("a1").getByTestId("stats").textContent(), "1,204 cached · 37 new · first token 84 ms · 61.3 tok/s · context 32%");
    assert.match((await chat.entry("a2").getByTestId("stats").textContent()) ?? "", / · restored$/);
    assert.equal(await chat.entry("a3").getByTestId("stats").textContent(), "stopped");
    assert.equal(await chat.entry("a3").getAttribute("data-status"), "stopped");
    assert.equal(await chat.entry("u1").getByTestId("stats").count(), 0);
    assert.deepEqual(await chat.page.getByTestId("entry").evaluateAll((els) => els.map((e) => e.getAttribute("data-role"))), ["user", "assistant", "assistant", "assistant"]);
  });

  it("entryDone sets status, final text and stats", async () => {
    await chat.push(init([]), { type: "entry", entry: { id: "a1", role: "assistant", text: "", status: "streaming" } });
    await chat.push({ type: "tokens", id: "a1", text: "Partial answ" });
    await chat.push({ type: "entryDone", id: "a1", status: "stopped", text: "Partial answ", stats: STATS });
    assert.equal(await chat.entry("a1").getAttribute("data-status"), "stopped");
    assert.match((await chat.entry("a1").getByTestId("stats").textContent()) ?? "", /^1,204 cached .* · stopped$/);
  });

  it("the status line and its tooltip show speculative decoding's drafted and accepted tokens", async () => {
    const speculation = { drafted: 120, accepted: 96, steps: 40, tokensPerStep: 3.4 };
    await chat.push(init([]), { type: "entry", entry: { id: "a1", role: "assistant", text: "", status: "streaming" } });
    await chat.push({ type: "entryDone", id: "a1", status: "complete", text: "Done", stats: { ...STATS, speculation } });
    assert.equal(
      await chat.entry("a1").getByTestId("stats").textContent(),
      "1,204 cached · 37 new · first token 84 ms · 61.3 tok/s · 96/120 drafted accepted (3.4 tok/step) · context 32%",
    );
    assert.match((await chat.entry("a1").getByTestId("stats").getAttribute("title")) ?? "", /96 of 120 drafted tokens accepted, 40 model steps \(3.4 tokens per step\)/);
    // A malformed speculation field drops that detail only.
    await chat.push({ type: "entryDone", id: "a1", status: "complete", text: "Done", stats: { ...STATS, speculation: { drafted: -1 } } as never });
    assert.equal(await chat.entry("a1").getByTestId("stats").textContent(), "1,204 cached · 37 new · first token 84 ms · 61.3 tok/s · context 32%");
  });

  it("shows not-sent user entries greyed with a note, and error entries as errors", async () => {
    await chat.push(
      init([
        { id: "u1", role: "user", text: "queued question", status: "not-sent" },
        { id: "a1", role: "assistant", text: "The model crashed: out of memory", status: "error" },
      ]),
    );
    const notSent = chat.entry("u1");
    assert.equal(await notSent.getAttribute("data-status"), "not-sent");
    assert.match((await notSent.locator(".entry-note").textContent()) ?? "", /never read/);
    assert.ok(Number(await notSent.locator(".entry-body").evaluate((e) => getComputedStyle(e).opacity)) < 1);
    const error = chat.entry("a1");
    assert.equal(await error.getAttribute("data-status"), "error");
    assert.equal(await error.locator(".entry-body .codicon-error").count(), 1);
    assert.equal((await error.locator(".entry-body").textContent())?.trim(), "The model crashed: out of memory");
  });

  it("shows notices and context chips", async () => {
    await chat.push(
      init([
        { id: "n1", role: "notice", text: "Conversation summarized to fit: freed 2,310 tokens", status: "complete" },
        { id: "u1", role: "user", text: "fix it", status: "complete", chips: [{ label: "main.ts", kind: "file", detail: "src/main.ts" }, { label: "2 problems", kind: "diagnostics" }] },
      ]),
    );
    assert.equal(await chat.entry("n1").getAttribute("data-role"), "notice");
    assert.equal((await chat.entry("n1").locator(".entry-body").textContent())?.trim(), "Conversation summarized to fit: freed 2,310 tokens");
    assert.deepEqual(await chat.entry("u1").locator(".chip").allTextContents(), ["main.ts", "2 problems"]);
  });

  it("banner buttons post runCommand with their command", async () => {
    await chat.push(init([]), {
      type: "banner",
      level: "warning",
      message: "No model is configured.",
      actions: [
        { label: "Download Model", command: "statefulChat.downloadModel" },
        { label: "Select Model…", command: "statefulChat.selectModel" },
        { label: "Evil", command: "workbench.action.terminal.new" },
      ],
    });
    const banner = chat.page.getByTestId("banner");
    assert.match((await banner.textContent()) ?? "", /No model is configured/);
    assert.deepEqual(await banner.locator(".banner-actions button").allTextContents(), ["Download Model", "Select Model…"]);
    await banner.getByRole("button", { name: "Select Model…" }).click();
    assert.deepEqual((await chat.posted()).filter((m) => m.type === "runCommand"), [{ type: "runCommand", command: "statefulChat.selectModel" }]);
    await banner.getByRole("button", { name: "Dismiss" }).click();
    assert.equal(await chat.page.getByTestId("banner").count(), 0);
  });

  it("model status shows the model, loading and errors", async () => {
    const status = chat.page.getByTestId("model-status");
    await chat.push(init([]));
    assert.match((await status.textContent()) ?? "", /SmolLM2-135M-Instruct.*llama\.cpp/);
    await chat.push({ type: "model", state: "loading" });
    assert.equal(await status.textContent(), "Loading model…");
    await chat.push({ type: "model", state: "error", message: "Model file not found: /x.gguf" });
    assert.equal(await status.textContent(), "Model file not found: /x.gguf");
    await chat.push({ type: "model", state: "ready", model: { name: "Qwen2.5-Coder-1.5B", backend: "coreml", capacity: 2048, details: "" } });
    assert.match((await status.textContent()) ?? "", /Qwen2.5-Coder-1.5B.*coreml/);
  });

  it("cleared empties the transcript", async () => {
    await chat.push(init([{ id: "u1", role: "user", text: "hi", status: "complete" }]), { type: "cleared" });
    assert.equal(await chat.page.getByTestId("entry").count(), 0);
    assert.equal(await chat.page.locator(".empty-state").isVisible(), true);
  });

  it("ignores malformed host messages and keeps working", async () => {
    await chat.push(
      null,
      "init",
      42,
      [],
      { type: "nope" },
      { type: "init", transcript: "not a list", busy: false },
      { type: "entry", entry: { id: "x", role: "robot", text: "?", status: "complete" } },
      { type: "tokens", id: 7, text: "x" },
      { type: "busy", busy: "yes", queued: 0 },
      { type: "banner", message: 3, actions: [] },
      { type: "entry", entry: { id: "bad-nested", role: "assistant", text: "nested junk", status: "complete", stats: { cached: "lots" }, chips: "file" } },
      { type: "banner", level: "info", message: "odd actions", actions: [null, 5, { label: "ok", command: "statefulChat.openSettings" }] },
    );
    // The entry with junk nested fields still shows, without a stats line.
    assert.equal(await chat.page.getByTestId("entry").count(), 1);
    assert.equal(await chat.entry("bad-nested").getByTestId("stats").count(), 0);
    assert.deepEqual(await chat.page.getByTestId("banner").locator(".banner-actions button").allTextContents(), ["ok"]);
    // Still alive: a valid conversation renders and the composer still sends.
    await chat.push(init([{ id: "u1", role: "user", text: "still here", status: "complete" }]));
    assert.equal((await chat.entry("u1").locator(".entry-body").textContent())?.trim(), "still here");
    await chat.page.getByTestId("composer").fill("works");
    await chat.page.getByTestId("composer").press("Enter");
    assert.deepEqual((await chat.posted()).filter((m) => m.type === "send"), [{ type: "send", text: "works" }]);
  });

  it("is accessible: a polite log, busy while streaming, every button named", async () => {
    await chat.push(
      init([
        { id: "u1", role: "user", text: "hi", status: "complete" },
        { id: "a1", role: "assistant", text: "```js\nx()\n```", status: "streaming" },
      ], true),
      { type: "banner", level: "error", message: "Download failed", actions: [{ label: "Retry", command: "statefulChat.downloadModel" }] },
    );
    const log = chat.page.getByRole("log");
    assert.equal(await log.getAttribute("aria-live"), "polite");
    assert.equal(await chat.entry("a1").getAttribute("aria-busy"), "true");
    const unnamed = await chat.page.locator("button").evaluateAll((buttons) =>
      buttons.filter((b) => !(b.getAttribute("aria-label") || b.textContent?.trim())).map((b) => b.outerHTML),
    );
    assert.deepEqual(unnamed, []);
    assert.equal(await chat.page.getByTestId("banner").getAttribute("role"), "alert");
  });
});
