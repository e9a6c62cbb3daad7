// Fuzz of the webview -> host protocol: arbitrary input never throws and only valid
// messages get through.
import assert from "node:assert/strict";
import { it } from "node:test";
import { BANNER_COMMANDS, parseHostMessage, parseWebviewMessage } from "../../src/webview/protocol/messages";
import { seededRandom } from "../support/random";

function randomValue(random: () => number, depth = 0): unknown {
  const r = random();
  if (depth > 2 || r < 0.2) return [null, undefined, 0, -1, 1e308, NaN, true, "", "send", "x".repeat(50)][Math.floor(random() * 10)];
  if (r < 0.5) {
    const obj: Record<string, unknown> = {};
    const keys = ["type", "text", "code", "command", "transcript", "busy", "__proto__", "constructor"];
    for (let i = 0; i < 4; i++) obj[keys[Math.floor(random() * keys.length)]] = randomValue(random, depth + 1);
    if (random() < 0.6) obj.type = ["send", "stop", "reset", "ready", "copyCode", "insertCode", "runCommand", "eval", 7][Math.floor(random() * 9)];
    return obj;
  }
  if (r < 0.7) return Array.from({ length: 3 }, () => randomValue(random, depth + 1));
  return String.fromCharCode(Math.floor(random() * 0xffff));
}

it("parseWebviewMessage accepts exactly the protocol's shapes, whatever arrives", () => {
  const random = seededRandom(42);
  let accepted = 0;
  for (let i = 0; i < 20_000; i++) {
    const value = randomValue(random);
    const parsed = parseWebviewMessage(value);
    if (!parsed) continue;
    accepted++;
    switch (parsed.type) {
      case "send":
        assert.equal(typeof parsed.text, "string");
        break;
      case "copyCode":
      case "insertCode":
        assert.equal(typeof parsed.code, "string");
        break;
      case "runCommand":
        assert.ok((BANNER_COMMANDS as readonly string[]).includes(parsed.command));
        break;
      case "ready":
      case "stop":
      case "reset":
        break;
    }
  }
  assert.ok(accepted > 100, `some random messages were valid (${accepted})`);
  assert.equal(parseWebviewMessage({ type: "runCommand", command: "workbench.action.terminal.new" }), undefined, "only banner commands");
  assert.equal(parseWebviewMessage({ type: "send", text: 42 }), undefined);
  assert.equal(parseWebviewMessage({ type: "openLink", url: "javascript:alert(1)" }), undefined, "only http(s) links open");
  assert.equal(parseWebviewMessage({ type: "openLink", url: "file:///etc/passwd" }), undefined);
  assert.deepEqual(parseWebviewMessage({ type: "openLink", url: "https://example.com/a" }), { type: "openLink", url: "https://example.com/a" });
  assert.deepEqual(parseWebviewMessage({ type: "send", text: "hi", extra: 1 }), { type: "send", text: "hi" }, "extra fields dropped");
});

it("parseHostMessage never throws on junk", () => {
  const random = seededRandom(7);
  for (let i = 0; i < 5_000; i++) parseHostMessage(randomValue(random));
  assert.equal(parseHostMessage({ type: "tokens", id: "a", text: "b" })?.type, "tokens");
  assert.equal(parseHostMessage({ type: "tokens", id: 1 }), undefined);
});

it("a sent message's chips keep every chip kind the protocol has (an @workspace outline chip included)", async () => {
  const { validChips } = await import("../../src/webview/protocol/entry-guards");
  const { CONTEXT_CHIP_KINDS } = await import("../../src/webview/protocol/messages");
  const chips = CONTEXT_CHIP_KINDS.map((kind) => ({ kind, label: kind }));
  assert.deepEqual(validChips(chips)?.map((c) => c.kind), [...CONTEXT_CHIP_KINDS]);
  assert.deepEqual(validChips([{ kind: "bogus", label: "x" }]), []);
});
