// Apply's webview messages: well-formed ones pass with only their own fields, malformed ones
// are dropped whole; the host's applyState is checked against the one list of states.
import assert from "node:assert/strict";
import { it } from "node:test";
import { APPLY_STATES, MAX_APPLY_BLOCKS, MAX_MESSAGE_CHARS, parseHostMessage, parseWebviewMessage } from "../../src/webview/protocol/messages";
import { seededRandom } from "../support/random";

it("accepts well-formed apply messages and drops extra fields", () => {
  assert.deepEqual(parseWebviewMessage({ type: "applyCode", entryId: "e1", block: 0, code: "x", extra: 1 }), { type: "applyCode", entryId: "e1", block: 0, code: "x" });
  assert.deepEqual(parseWebviewMessage({ type: "applyCode", entryId: "e1", block: 2, code: "", fast: true }), { type: "applyCode", entryId: "e1", block: 2, code: "", fast: true });
  assert.deepEqual(parseWebviewMessage({ type: "applyCode", entryId: "e1", block: 2, code: "y", fast: false }), { type: "applyCode", entryId: "e1", block: 2, code: "y" });
  assert.deepEqual(parseWebviewMessage({ type: "applyAll", entryId: "e1", codes: ["a", "b"] }), { type: "applyAll", entryId: "e1", codes: ["a", "b"] });
  assert.deepEqual(parseWebviewMessage({ type: "cancelApply", entryId: "e1", block: 1 }), { type: "cancelApply", entryId: "e1", block: 1 });
});

it("refuses malformed apply messages", () => {
  const bad: unknown[] = [
    { type: "applyCode", entryId: "e1", block: 0 },
    { type: "applyCode", entryId: "e1", block: -1, code: "x" },
    { type: "applyCode", entryId: "e1", block: 1.5, code: "x" },
    { type: "applyCode", entryId: "e1", block: MAX_APPLY_BLOCKS, code: "x" },
    { type: "applyCode", entryId: "e1", block: "0", code: "x" },
    { type: "applyCode", entryId: "", block: 0, code: "x" },
    { type: "applyCode", entryId: 7, block: 0, code: "x" },
    { type: "applyCode", entryId: "e1", block: 0, code: 7 },
    { type: "applyCode", entryId: "e1", block: 0, code: "x".repeat(MAX_MESSAGE_CHARS + 1) },
    { type: "applyCode", entryId: "e1", block: 0, code: "x", fast: "yes" },
    { type: "applyAll", entryId: "e1", codes: [] },
    { type: "applyAll", entryId: "e1", codes: "a" },
    { type: "applyAll", entryId: "e1", codes: [1] },
    { type: "applyAll", entryId: "e1", codes: Array.from({ length: MAX_APPLY_BLOCKS + 1 }, () => "a") },
    { type: "applyAll", codes: ["a"] },
    { type: "cancelApply", entryId: "e1" },
    { type: "cancelApply", block: 0 },
  ];
  for (const message of bad) assert.equal(parseWebviewMessage(message), undefined, JSON.stringify(message).slice(0, 120));
});

it("random junk with apply types never throws and never passes malformed", () => {
  const random = seededRandom(18);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const values = [undefined, null, 0, -1, 1, 63, 64, 2.5, "", "e", "x".repeat(10), [], ["a"], [1], {}, true, false, NaN];
  let accepted = 0;
  for (let i = 0; i < 20_000; i++) {
    const message: Record<string, unknown> = { type: pick(["applyCode", "applyAll", "cancelApply"]) };
    for (const key of ["entryId", "block", "code", "codes", "fast"]) if (random() < 0.8) message[key] = pick(values);
    const parsed = parseWebviewMessage(message);
    if (!parsed) continue;
    accepted++;
    if (parsed.type === "applyCode" || parsed.type === "cancelApply") {
      assert.ok(typeof parsed.entryId === "string" && parsed.entryId !== "" && Number.isSafeInteger(parsed.block) && parsed.block >= 0 && parsed.block < MAX_APPLY_BLOCKS);
    }
    if (parsed.type === "applyCode") assert.equal(typeof parsed.code, "string");
    if (parsed.type === "applyAll") assert.ok(parsed.codes.length > 0 && parsed.codes.every((c) => typeof c === "string"));
  }
  assert.ok(accepted > 50, `some were valid (${accepted})`);
});

it("the host's applyState: every state of the one list, nothing else", () => {
  for (const state of APPLY_STATES) {
    assert.equal(parseHostMessage({ type: "applyState", entryId: "e", block: 0, state, message: "m" })?.type, "applyState", state);
  }
  assert.equal(parseHostMessage({ type: "applyState", entryId: "e", block: 0, state: "exploded", message: "m" }), undefined);
  assert.equal(parseHostMessage({ type: "applyState", entryId: "e", block: -1, state: "applied", message: "m" }), undefined);
  assert.equal(parseHostMessage({ type: "applyState", entryId: "e", block: 0, state: "applied" }), undefined);
  assert.equal(parseHostMessage({ type: "applyState", entryId: "e", block: 0, state: "error", message: "m", offerFast: "yes" }), undefined);
});
