// Renders a realistic conversation in the light and dark theme and saves screenshots to
// test-artifacts/ for a human to look at (nothing pixel-compared: fonts differ per machine).
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import type { HostToWebview } from "../../src/webview/protocol/messages";
import { init, WebviewHarness } from "./harness";

const ARTIFACTS = resolve(import.meta.dirname, "../../test-artifacts");

const ANSWER = [
  "The loop re-reads `items.length` and allocates a new array on every pass. Use `reduce` instead:",
  "",
  "```ts",
  "export function total(items: readonly Item[]): number {",
  "  // One pass, no intermediate arrays.",
  "  return items.reduce((sum, item) => sum + item.price * item.quantity, 0);",
  "}",
  "```",
  "",
  "Then call it from **`checkout()`**; see [Array.prototype.reduce](https://developer.mozilla.org/docs/Web/JavaScript/Reference/Global_Objects/Array/reduce).",
].join("\n");

const CONVERSATION: HostToWebview[] = [
  init([
    { id: "n0", role: "notice", text: "Restored conversation from disk: 1,204 tokens reused", status: "complete" },
    {
      id: "u1",
      role: "user",
      text: "Why is total() slow on large carts?",
      status: "complete",
      chips: [
        { label: "cart.ts", kind: "file", detail: "src/cart.ts" },
        { label: "cart.ts:12-30", kind: "selection" },
        { label: "1 problem", kind: "diagnostics" },
      ],
    },
    { id: "a1", role: "assistant", text: ANSWER, status: "complete", stats: { prefilled: 412, cached: 1204, position: 1718, capacity: 4096, ttftMs: 96, decodeTokensPerSec: 58.4, replyTokens: 102, restored: true } },
    { id: "n1", role: "notice", text: "Conversation summarized to fit: freed 2,310 tokens", status: "complete" },
    { id: "u2", role: "user", text: "And as a Python one-liner?", status: "complete" },
    { id: "a2", role: "assistant", text: "```python\ntotal = sum(i.price * i.quantity for i in items)\n```\n\nThis is", status: "stopped", stats: { prefilled: 18, cached: 1830, position: 1870, capacity: 4096, ttftMs: 41, decodeTokensPerSec: 61.2, replyTokens: 22, restored: false } },
    { id: "u3", role: "user", text: "Also check the tax rounding", status: "not-sent" },
    { id: "e1", role: "assistant", text: "Generation failed: the context is full (4,096 tokens).", status: "error" },
    { id: "u4", role: "user", text: "Write a diff that adds tests for total()", status: "complete", chips: [{ label: "cart.test.ts", kind: "removed" }] },
    { id: "a4", role: "assistant", text: "", status: "streaming" },
  ], true),
  { type: "busy", busy: true, queued: 1 },
  { type: "banner", level: "info", message: "A stronger model is available for this machine.", actions: [{ label: "Download Model", command: "statefulChat.downloadModel" }, { label: "Settings", command: "statefulChat.openSettings" }] },
  { type: "tokens", id: "a4", text: "Here is a test:\n\n```diff\n--- a/test/cart.test.ts\n+++ b/test/cart.test.ts\n@@ -1,3 +1,6 @@\n import { total } from \"../src/cart\";\n-// TODO\n+test(\"sums price × quantity\", () => {\n+  expect(total([{ price: 2, quantity: 3 }])).toBe(6);\n+});\n" },
];

describe("webview screenshots", () => {
  let harness: WebviewHarness;
  before(async () => {
    harness = await WebviewHarness.start();
    mkdirSync(ARTIFACTS, { recursive: true });
  });
  after(async () => {
    await harness.stop();
  });

  for (const theme of ["dark", "light"] as const) {
    it(`renders a realistic conversation (${theme})`, async () => {
      const chat = await harness.open(theme);
      await chat.page.setViewportSize({ width: 560, height: 1450 });
      await chat.push(...CONVERSATION);
      await chat.page.getByTestId("composer").fill("Can you also handle discounts?");
      await chat.page.evaluate(() => document.fonts.ready);
      await chat.nextFrames();
      await chat.page.screenshot({ path: join(ARTIFACTS, `webview-${theme}.png`) });
      assert.deepEqual(chat.errors, []);
      assert.deepEqual(await chat.cspViolations(), []);
      await chat.close();
    });
  }
});
