// Streaming: many small "tokens" messages, batched into few renders, with exact final text.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { HostToWebview } from "../../src/webview/protocol/messages";
import { init, WebviewHarness, type ChatPage } from "./harness";

const REPLY = [
  "Here is the plan — naïve first, then faster: 日本語のテキスト, emoji 👩‍💻🚀, and e\u0301.",
  "",
  "1. Parse the input",
  "2. Build the index",
  "",
  "```ts",
  "function sum(xs: number[]): number {",
  "",
  "  return xs.reduce((a, b) => a + b, 0); // Σ",
  "}",
  "```",
  "",
  "> Note: **measure** before optimizing.",
  "",
  "Done ✅",
].join("\n");

/** Splits text into chunks of 1–3 UTF-16 units, so some chunks cut surrogate pairs in half. */
function utf16Chunks(text: string): string[] {
  const chunks: string[] = [];
  for (let i = 0, n = 1; i < text.length; i += n, n = (n % 3) + 1) chunks.push(text.slice(i, i + n));
  return chunks;
}

function tokens(id: string, chunks: readonly string[]): HostToWebview[] {
  return chunks.map((text) => ({ type: "tokens", id, text }));
}

/** Headless pages are never hidden; pretend, the way a hidden VS Code panel would be. */
async function setHidden(chat: ChatPage, hidden: boolean): Promise<void> {
  // A string, not a function: tsx would wrap a function's inner arrows in a helper the page lacks.
  await chat.page.evaluate(`Object.defineProperty(document, "hidden", { configurable: true, value: ${hidden} });
    document.dispatchEvent(new Event("visibilitychange"));`);
}

describe("webview streaming", () => {
  let harness: WebviewHarness;
  let chat: ChatPage;

  before(async () => {
    harness = await WebviewHarness.start();
  });
  after(async () => {
    await harness.stop();
  });

  async function startStream(): Promise<void> {
    chat = await harness.open();
    await chat.push(init([]), { type: "entry", entry: { id: "a1", role: "assistant", text: "", status: "streaming" } });
  }

  it("renders the streamed text exactly as a one-shot render would, then the host's final text", async () => {
    await startStream();
    assert.equal(await chat.entry("a1").getAttribute("aria-busy"), "true");
    await chat.push(...tokens("a1", utf16Chunks(REPLY)));
    await chat.nextFrames();
    // Same text rendered in one go, for comparison with the incremental render.
    await chat.push({ type: "entry", entry: { id: "ref", role: "assistant", text: REPLY, status: "complete" } });
    const streamed = await chat.entry("a1").locator(".entry-body").textContent();
    const oneShot = await chat.entry("ref").locator(".entry-body").textContent();
    assert.equal(streamed, oneShot);
    assert.ok(streamed?.includes("日本語のテキスト, emoji 👩‍💻🚀, and e\u0301."));
    assert.equal(await chat.entry("a1").locator("pre code .hljs-keyword").first().textContent(), "function");

    await chat.push({ type: "entryDone", id: "a1", status: "complete", text: REPLY });
    assert.equal(await chat.entry("a1").getAttribute("aria-busy"), null);
    assert.equal(await chat.entry("a1").getAttribute("data-status"), "complete");
    assert.equal(await chat.entry("a1").locator(".entry-body").textContent(), oneShot);
    assert.deepEqual(chat.errors, []);
    await chat.close();
  });

  it("batches 2,000 token messages into far fewer renders", async (t) => {
    await startStream();
    const words = Array.from({ length: 2000 }, (_, i) => (i % 50 === 49 ? `w${i}\n\n` : `w${i} `));
    // Sent in a few bursts, as a fast model would: each burst arrives between two frames.
    for (let i = 0; i < words.length; i += 250) await chat.push(...tokens("a1", words.slice(i, i + 250)));
    await chat.nextFrames();
    const counters = await chat.counters();
    assert.equal(counters.tokenMessages, 2000);
    t.diagnostic(`${counters.tokenMessages} token messages -> ${counters.streamRenders} renders`);
    // Bursts arrive within a few frames each; at least 20 messages per render on average.
    assert.ok(counters.streamRenders >= 1 && counters.streamRenders <= 100, `renders: ${counters.streamRenders}`);
    const text = (await chat.entry("a1").locator(".entry-body").textContent()) ?? "";
    assert.equal(text.replace(/\s+/g, " ").trim(), words.join("").replace(/\s+/g, " ").trim());
    // Finished paragraphs are frozen; only the tail is re-rendered.
    assert.ok((await chat.entry("a1").locator(".md-chunk").count()) > 2);
    await chat.close();
  });

  it("buffers while the document is hidden and renders once when it is shown again", async () => {
    await startStream();
    await chat.push(...tokens("a1", ["Visible "]));
    await chat.nextFrames();
    const before = await chat.counters();
    await setHidden(chat, true);
    await chat.push(...tokens("a1", Array.from({ length: 100 }, (_, i) => `h${i} `)));
    await chat.nextFrames();
    assert.equal((await chat.counters()).streamRenders, before.streamRenders);
    assert.equal((await chat.entry("a1").locator(".entry-body").textContent())?.trim(), "Visible");

    await setHidden(chat, false);
    assert.equal((await chat.counters()).streamRenders, before.streamRenders + 1);
    assert.match((await chat.entry("a1").locator(".entry-body").textContent()) ?? "", /h0 h1 .* h99/);
    await chat.close();
  });

  it("follows the bottom while streaming only if the user was at the bottom", async () => {
    await startStream();
    const scroller = chat.page.locator(".transcript");
    const lines = Array.from({ length: 120 }, (_, i) => `line ${i}\n\n`);
    await chat.push(...tokens("a1", lines.slice(0, 60)));
    await chat.nextFrames();
    const atBottom = () => scroller.evaluate((e) => e.scrollHeight - e.scrollTop - e.clientHeight < 30);
    assert.equal(await atBottom(), true);

    await scroller.evaluate((e) => e.scrollTo({ top: 0 }));
    await chat.nextFrames();
    await chat.push(...tokens("a1", lines.slice(60)));
    await chat.nextFrames();
    assert.equal(await scroller.evaluate((e) => e.scrollTop), 0);
    assert.equal(await atBottom(), false);
    await chat.close();
  });

  it("drops tokens for unknown or finished entries", async () => {
    await startStream();
    await chat.push({ type: "entryDone", id: "a1", status: "complete", text: "final" });
    await chat.push(...tokens("a1", [" late"]), ...tokens("nope", ["ghost"]));
    await chat.nextFrames();
    assert.equal((await chat.entry("a1").locator(".entry-body").textContent())?.trim(), "final");
    assert.equal(await chat.page.getByTestId("entry").count(), 1);
    await chat.close();
  });
});
