import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ContextLedger, type ContextItem } from "../../src/extension/core/context-delta";
import { checkText, decodeWorkspaceBytes, looksLikeSecretFile } from "../../src/extension/core/context-filter";

const budget = { maxTokensPerTurn: 10_000, maxTokensPerItem: 5_000, countTokens: (t: string) => Math.ceil(t.length / 4) };
const lines = Array.from({ length: 80 }, (_, i) => `const value${i} = compute(${i});`).join("\n") + "\n";
const file = (content: string): ContextItem => ({ id: "file:src/a.ts", kind: "file", label: "src/a.ts", content, language: "typescript" });

describe("context delta", () => {
  it("sends a new item in full once; unchanged items are never re-sent", () => {
    const ledger = new ContextLedger();
    const first = ledger.delta([file(lines)], budget);
    assert.match(first.text, /src\/a\.ts:\n```typescript\nconst value0/);
    first.commit();
    const second = ledger.delta([file(lines)], budget);
    assert.equal(second.text, "");
    assert.deepEqual(second.chips, []);
  });

  it("a changed file is sent as a unified diff when that is shorter", () => {
    const ledger = new ContextLedger();
    ledger.delta([file(lines)], budget).commit();
    const changed = lines.replace("compute(40)", "computeFast(40)");
    const delta = ledger.delta([file(changed)], budget);
    assert.match(delta.text, /src\/a\.ts changed:\n```diff\n@@/);
    assert.match(delta.text, /-const value40 = compute\(40\);\n\+const value40 = computeFast\(40\);/);
    assert.ok(delta.text.length < changed.length / 2);
    assert.equal(delta.chips[0].kind, "diff");
  });

  it("a removed item becomes a one-line note", () => {
    const ledger = new ContextLedger();
    ledger.delta([file(lines)], budget).commit();
    const delta = ledger.delta([], budget);
    assert.match(delta.text, /\(src\/a\.ts is no longer in context\.\)/);
    assert.equal(delta.chips[0].kind, "removed");
    delta.commit();
    assert.equal(ledger.size, 0);
  });

  it("nothing is recorded until commit (a cancelled turn re-sends next time)", () => {
    const ledger = new ContextLedger();
    ledger.delta([file(lines)], budget);
    assert.match(ledger.delta([file(lines)], budget).text, /const value0/);
  });

  it("budgets truncate a big item and skip what does not fit in the turn", () => {
    const ledger = new ContextLedger();
    const small = { ...budget, maxTokensPerItem: 50, maxTokensPerTurn: 80 };
    const other: ContextItem = { id: "file:b", kind: "file", label: "b.ts", content: "x".repeat(400) };
    const delta = ledger.delta([file(lines), other], small);
    assert.match(delta.text, /src\/a\.ts \(truncated\)/);
    assert.ok(small.countTokens(delta.text) <= 80 + 20);
    assert.deepEqual(delta.chips.map((c) => c.kind), ["file", "skipped"]);
  });

  it("after clear() (reset or overflow) items are sent in full again", () => {
    const ledger = new ContextLedger();
    ledger.delta([file(lines)], budget).commit();
    ledger.clear();
    assert.match(ledger.delta([file(lines + "// more\n")], budget).text, /src\/a\.ts:\n```typescript/);
  });
});

describe("context filter", () => {
  it("refuses binary bytes and invalid UTF-8; accepts UTF-8 text", () => {
    assert.deepEqual(decodeWorkspaceBytes(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01])), { ok: false, reason: "binary file" });
    assert.deepEqual(decodeWorkspaceBytes(new Uint8Array([0x61, 0xff, 0xfe, 0x62])), { ok: false, reason: "not valid UTF-8" });
    assert.deepEqual(decodeWorkspaceBytes(new TextEncoder().encode("héllo 😀")), { ok: true, text: "héllo 😀" });
  });

  it("refuses secret-looking files and contents", () => {
    for (const path of ["/w/.env", "/w/.env.local", "/w/keys/server.pem", "/home/u/.ssh/id_rsa", "/w/credentials.json"]) {
      assert.ok(looksLikeSecretFile(path), path);
    }
    for (const path of ["/w/src/env.ts", "/w/README.md", "/w/keyboard.ts"]) assert.ok(!looksLikeSecretFile(path), path);
    assert.equal(checkText("-----BEGIN RSA PRIVATE KEY-----\nabc").ok, false);
    assert.equal(checkText("aws = AKIAABCDEFGHIJKLMNOP").ok, false);
    assert.equal(checkText("const key = process.env.KEY;").ok, true);
  });
});
