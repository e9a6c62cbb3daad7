// The composer's context messages (chips, pins, the active-file switch, @-mentions): well-
// formed ones pass with only their own fields, malformed ones are dropped whole.
import assert from "node:assert/strict";
import { it } from "node:test";
import { MAX_CONTEXT_IDS, MAX_MENTION_QUERY_CHARS, parseHostMessage, parseWebviewMessage } from "../../src/webview/protocol/messages";
import { seededRandom } from "../support/random";

it("accepts well-formed context messages and drops extra fields", () => {
  assert.deepEqual(parseWebviewMessage({ type: "send", text: "hi", context: ["file:a.ts", "selection"] }), { type: "send", text: "hi", context: ["file:a.ts", "selection"] });
  assert.deepEqual(parseWebviewMessage({ type: "send", text: "hi", context: [] }), { type: "send", text: "hi", context: [] });
  assert.deepEqual(parseWebviewMessage({ type: "removeChip", id: "file:a.ts", extra: 1 }), { type: "removeChip", id: "file:a.ts" });
  assert.deepEqual(parseWebviewMessage({ type: "pinChip", id: "file:a.ts", pinned: true }), { type: "pinChip", id: "file:a.ts", pinned: true });
  assert.deepEqual(parseWebviewMessage({ type: "setActiveFile", on: false }), { type: "setActiveFile", on: false });
  assert.deepEqual(parseWebviewMessage({ type: "mentionQuery", requestId: 3, query: "sha" }), { type: "mentionQuery", requestId: 3, query: "sha" });
  assert.deepEqual(parseWebviewMessage({ type: "addMention", value: "src/a.ts" }), { type: "addMention", value: "src/a.ts" });
});

it("refuses malformed context messages", () => {
  const bad: unknown[] = [
    { type: "send", text: "hi", context: "file:a.ts" },
    { type: "send", text: "hi", context: [1, 2] },
    { type: "send", text: "hi", context: [null] },
    { type: "send", text: "hi", context: Array.from({ length: MAX_CONTEXT_IDS + 1 }, (_, i) => `file:${i}`) },
    { type: "send", text: "hi", context: ["x".repeat(5000)] },
    { type: "removeChip" },
    { type: "removeChip", id: "" },
    { type: "removeChip", id: 7 },
    { type: "pinChip", id: "file:a.ts" },
    { type: "pinChip", id: "file:a.ts", pinned: "yes" },
    { type: "setActiveFile", on: 1 },
    { type: "setActiveFile" },
    { type: "mentionQuery", requestId: "1", query: "a" },
    { type: "mentionQuery", requestId: 1.5, query: "a" },
    { type: "mentionQuery", requestId: 1, query: "q".repeat(MAX_MENTION_QUERY_CHARS + 1) },
    { type: "mentionQuery", requestId: 1 },
    { type: "addMention", value: "" },
    { type: "addMention", value: "   " },
    { type: "addMention", value: ["a"] },
    { type: "addMention" },
  ];
  for (const message of bad) assert.equal(parseWebviewMessage(message), undefined, JSON.stringify(message).slice(0, 80));
});

it("context messages from random junk never throw and only valid shapes pass", () => {
  const random = seededRandom(11);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  const values = [undefined, null, 0, 1.5, -1, true, "", "file:a.ts", [], ["a"], [1], {}, "x".repeat(600)];
  let accepted = 0;
  for (let i = 0; i < 10_000; i++) {
    const message = {
      type: pick(["send", "removeChip", "pinChip", "setActiveFile", "mentionQuery", "addMention"]),
      text: pick(values),
      context: pick(values),
      id: pick(values),
      pinned: pick(values),
      on: pick(values),
      requestId: pick(values),
      query: pick(values),
      value: pick(values),
    };
    const parsed = parseWebviewMessage(message);
    if (!parsed) continue;
    accepted++;
    if (parsed.type === "send") assert.ok(parsed.context === undefined || parsed.context.every((id) => typeof id === "string"));
    if (parsed.type === "pinChip") assert.equal(typeof parsed.pinned, "boolean");
    if (parsed.type === "mentionQuery") assert.ok(Number.isSafeInteger(parsed.requestId) && typeof parsed.query === "string");
  }
  assert.ok(accepted > 0);
});

it("the webview refuses malformed composer context and mention results from the host", () => {
  const chip = { id: "file:a.ts", label: "a.ts", kind: "file", state: "new", tokens: 12, origin: "auto", pinnable: true };
  assert.equal(parseHostMessage({ type: "composerContext", chips: [chip], activeFileOff: false })?.type, "composerContext");
  assert.equal(parseHostMessage({ type: "composerContext", chips: [{ ...chip, state: "sent" }], activeFileOff: false }), undefined);
  assert.equal(parseHostMessage({ type: "composerContext", chips: [{ ...chip, tokens: "12" }], activeFileOff: false }), undefined);
  assert.equal(parseHostMessage({ type: "composerContext", chips: [chip] }), undefined);
  assert.equal(parseHostMessage({ type: "mentionResults", requestId: 1, options: [{ value: "a.ts", label: "a.ts", kind: "file" }] })?.type, "mentionResults");
  assert.equal(parseHostMessage({ type: "mentionResults", requestId: 1, options: [{ value: "a.ts", label: "a.ts", kind: "folder" }] }), undefined);
  assert.equal(parseHostMessage({ type: "mentionResults", options: [] }), undefined);
});
