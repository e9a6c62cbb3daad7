// The composer chips and the context a message carries come from one plan: these tests hold
// them equal, and check removal, pins, mentions, budgets and refusals (real files on disk).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ContextLedger, type ContextItem } from "../../src/extension/core/context-delta";
import { planContext, type ContextPlanInput, type RefusedItem } from "../../src/extension/core/context-plan";
import { limitToTokens } from "../../src/extension/core/context-window";
import { ContextChoices } from "../../src/extension/chats/context-choices";
import { forgetGitignores, readFileVerdict, refusalByPath } from "../../src/extension/shell/context/file-checks";

const count = (t: string) => Math.ceil(t.length / 4);
const budget = { maxTokensPerTurn: 10_000, maxTokensPerItem: 5_000, countTokens: count };
const body = (name: string, n = 60) => Array.from({ length: n }, (_, i) => `export const ${name}${i} = ${i};`).join("\n") + "\n";
const file = (path: string, content: string, origin: ContextItem["origin"] = "auto"): ContextItem => ({ id: `file:${path}`, kind: "file", label: path, content, origin });
const input = (items: ContextItem[], extra: Partial<ContextPlanInput> = {}): ContextPlanInput => ({ items, refused: [], setAside: new Set(), ...extra });

/** The labels the prompt text carries, in order. */
const labelsIn = (text: string) => [...text.matchAll(/^(\S+?)(?: \(.*\))?(?: changed)?:\n```/gm)].map((m) => m[1]);

describe("composer chips == sent context", () => {
  it("sending with the chips' ids carries exactly the items the chips show as new or diff", () => {
    const ledger = new ContextLedger();
    const items = [file("src/a.ts", body("a")), file("src/b.ts", body("b"), "mention"), { id: "selection", kind: "selection" as const, label: "Sel", content: "x = 1" }];
    const preview = planContext(ledger, input(items), budget);
    const sent = planContext(ledger, input(items, { chosen: new Set(preview.chips.map((c) => c.id)) }), budget);
    assert.deepEqual(sent.chips, preview.chips);
    assert.deepEqual(labelsIn(sent.delta.text), ["src/a.ts", "src/b.ts", "Sel"]);
    const total = preview.chips.reduce((s, c) => s + c.tokens, 0);
    assert.equal(total, sent.delta.entries.reduce((s, e) => s + e.tokens, 0));
    assert.ok(Math.abs(count(sent.delta.text) - total) <= 10, "chip tokens add up to the context text");
  });

  it("a removed chip is not sent, its tokens are gone, and no 'removed' note is sent for it", () => {
    const ledger = new ContextLedger();
    const items = [file("src/a.ts", body("a")), file("src/b.ts", body("b"))];
    const all = planContext(ledger, input(items), budget);
    const without = planContext(ledger, input(items, { chosen: new Set(["file:src/b.ts"]) }), budget);
    assert.deepEqual(labelsIn(without.delta.text), ["src/b.ts"]);
    assert.equal(count(all.delta.text) - count(without.delta.text) >= all.chips[0].tokens - 5, true);
    all.delta.commit();
    // Known now; setting it aside next turn sends nothing at all about it.
    const aside = planContext(ledger, input(items, { setAside: new Set(["file:src/a.ts"]) }), budget);
    assert.equal(aside.delta.text, "");
    assert.deepEqual(aside.chips.map((c) => c.id), ["file:src/b.ts"]);
  });

  it("chips of known items are dimmed: state known, zero tokens", () => {
    const ledger = new ContextLedger();
    const items = [file("src/a.ts", body("a"))];
    planContext(ledger, input(items), budget).delta.commit();
    const next = planContext(ledger, input(items), budget);
    assert.deepEqual(next.chips.map((c) => [c.state, c.tokens]), [["known", 0]]);
    assert.equal(next.delta.text, "");
  });

  it("ids the chips did not show are not sent, even if they are in the context now", () => {
    const ledger = new ContextLedger();
    const plan = planContext(ledger, input([file("src/a.ts", body("a")), file("src/new.ts", "late")]), budget, );
    const sent = planContext(ledger, input([file("src/a.ts", body("a")), file("src/new.ts", "late")], { chosen: new Set(["file:src/a.ts"]) }), budget);
    assert.equal(plan.chips.length, 2);
    assert.deepEqual(labelsIn(sent.delta.text), ["src/a.ts"]);
  });
});

describe("mentions and pins in the ledger", () => {
  it("a mentioned file is sent once, then as a diff when mentioned again after an edit", () => {
    const ledger = new ContextLedger();
    planContext(ledger, input([file("lib/m.ts", body("m"), "mention")]), budget).delta.commit();
    // The next message does not mention it: nothing about it is sent (no removal note).
    assert.equal(planContext(ledger, input([]), budget).delta.text, "");
    const edited = body("m").replace("m7 = 7", "m7 = 70");
    const again = planContext(ledger, input([file("lib/m.ts", edited, "mention")]), budget);
    assert.equal(again.chips[0].state, "diff");
    assert.match(again.delta.text, /lib\/m\.ts changed:\n```diff/);
  });

  it("a pinned file is re-checked every turn: unchanged costs nothing, changes go as diffs", () => {
    const ledger = new ContextLedger();
    const choices = new ContextChoices();
    choices.pin("lib/p.ts", true);
    let content = body("p");
    const turn = () => planContext(ledger, input(choices.pinned.map((path) => file(path, content, "pinned"))), budget);
    const first = turn();
    assert.equal(first.chips[0].state, "new");
    first.delta.commit();
    choices.sent();
    assert.equal(turn().chips[0].state, "known");
    content = content.replace("p3 = 3", "p3 = 33");
    const changed = turn();
    assert.equal(changed.chips[0].state, "diff");
    assert.equal(changed.chips[0].origin, "pinned");
    changed.delta.commit();
    choices.remove("file:lib/p.ts");
    assert.deepEqual(choices.pinned, [], "removing the chip unpins");
  });

  it("mentions last one message; set-asides too; pins and the active-file switch stay", () => {
    const choices = new ContextChoices();
    choices.mention({ kind: "file", path: "a.ts" });
    choices.mention({ kind: "keyword", keyword: "workspace" });
    choices.pin("b.ts", true);
    choices.remove("selection");
    choices.activeFileOff = true;
    assert.equal(choices.mentioned.length, 2);
    assert.ok(choices.setAside.has("selection"));
    choices.remove("file:a.ts");
    assert.equal(choices.mentioned.length, 1, "removing a mention's chip forgets the mention");
    assert.ok(choices.setAside.has("file:a.ts"), "…and keeps the same file from another source (the active editor) off the message");
    choices.sent();
    assert.deepEqual([choices.mentioned.length, choices.setAside.size, choices.pinned, choices.activeFileOff], [0, 0, ["b.ts"], true]);
  });

  it("budgets with many mentions: what fits is sent, the rest is shown skipped, never silently dropped", () => {
    const ledger = new ContextLedger();
    const items = Array.from({ length: 30 }, (_, i) => file(`m/f${i}.ts`, body(`f${i}`, 20), "mention"));
    const small = { ...budget, maxTokensPerTurn: 1500, maxTokensPerItem: 400 };
    const plan = planContext(ledger, input(items), small);
    const sent = plan.chips.filter((c) => c.state === "new");
    const skipped = plan.chips.filter((c) => c.state === "skipped");
    assert.equal(sent.length + skipped.length, 30);
    assert.ok(sent.length > 0 && skipped.length > 0);
    assert.ok(skipped.every((c) => c.detail === "over the context budget"));
    assert.ok(count(plan.delta.text) <= 1500 + 10);
    assert.deepEqual(labelsIn(plan.delta.text), sent.map((c) => c.label));
  });

  it("an active file over its budget is sent as the region around the cursor", () => {
    const text = body("big", 400);
    const limited = limitToTokens(text, 200, count, 300);
    assert.ok(limited.truncated);
    assert.match(limited.note ?? "", /^lines \d+-\d+ around the cursor$/);
    assert.match(limited.text, /big300 = 300/);
    assert.ok(!limited.text.includes("big0 ="));
    assert.ok(count(limited.text) <= 200);
    const plan = planContext(new ContextLedger(), input([{ ...file("big.ts", text), focusLine: 300 }]), { ...budget, maxTokensPerItem: 200 });
    assert.match(plan.chips[0].detail ?? "", /around the cursor/);
  });
});

describe("refused mentions", () => {
  it("ignored, binary, secret and deleted files are refused with a reason shown on their chip", async () => {
    const root = mkdtempSync(join(tmpdir(), "mentions-"));
    try {
      writeFileSync(join(root, ".gitignore"), "dist/\n*.log\n");
      writeFileSync(join(root, "ok.ts"), "export const ok = 1;\n");
      writeFileSync(join(root, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
      writeFileSync(join(root, "keys.ts"), "const k = 'AKIAABCDEFGHIJKLMNOP';\n");
      forgetGitignores();
      assert.equal(refusalByPath(join(root, "dist/out.js"), root, "dist/out.js"), "ignored by .gitignore");
      assert.equal(refusalByPath(join(root, "debug.log"), root, "debug.log"), "ignored by .gitignore");
      assert.equal(refusalByPath(join(root, ".env"), root, ".env"), "looks like a secrets file");
      assert.equal(refusalByPath(join(root, "ok.ts"), root, "ok.ts"), undefined);
      // A sub-folder's .gitignore counts too, relative to its folder, and its !pattern wins.
      mkdirSync(join(root, "pkg", "gen"), { recursive: true });
      writeFileSync(join(root, "pkg", ".gitignore"), "notes.txt\ngen/\n!keep.log\n");
      forgetGitignores();
      assert.equal(refusalByPath(join(root, "pkg/notes.txt"), root, "pkg/notes.txt"), "ignored by .gitignore");
      assert.equal(refusalByPath(join(root, "pkg/gen/api.ts"), root, "pkg/gen/api.ts"), "ignored by .gitignore");
      assert.equal(refusalByPath(join(root, "pkg/keep.log"), root, "pkg/keep.log"), undefined);
      assert.equal(refusalByPath(join(root, "pkg/other.log"), root, "pkg/other.log"), "ignored by .gitignore");
      assert.equal(refusalByPath(join(root, "notes.txt"), root, "notes.txt"), undefined);
      assert.equal(refusalByPath(join(root, "pkg/main.ts"), root, "pkg/main.ts"), undefined);
      assert.deepEqual(await readFileVerdict(join(root, "image.png")), { ok: false, reason: "binary file" });
      assert.deepEqual(await readFileVerdict(join(root, "keys.ts")), { ok: false, reason: "looks like it contains secrets" });
      assert.deepEqual(await readFileVerdict(join(root, "ok.ts")), { ok: true, text: "export const ok = 1;\n" });

      // Mentioned, then deleted before sending: the message goes without it, and says why.
      rmSync(join(root, "ok.ts"));
      const verdict = await readFileVerdict(join(root, "ok.ts"));
      assert.deepEqual(verdict, { ok: false, reason: "file no longer exists" });
      const refused: RefusedItem = { id: "file:ok.ts", label: "ok.ts", kind: "file", origin: "mention", reason: verdict.ok ? "" : verdict.reason };
      const plan = planContext(new ContextLedger(), { items: [], refused: [refused], setAside: new Set(), chosen: new Set(["file:ok.ts"]) }, budget);
      assert.equal(plan.delta.text, "");
      assert.deepEqual(plan.chips.map((c) => [c.state, c.detail]), [["skipped", "file no longer exists"]]);
      assert.deepEqual(plan.delta.chips, [{ label: "ok.ts", kind: "skipped", detail: "file no longer exists" }]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("removal notes are chips too", () => {
  it("a closed active file shows as a removed chip; removing that chip sends no note", () => {
    const ledger = new ContextLedger();
    planContext(ledger, input([file("src/a.ts", body("a"))]), budget).delta.commit();
    const next = planContext(ledger, input([file("src/b.ts", body("b"))]), budget);
    assert.deepEqual(next.chips.map((c) => [c.id, c.state]), [["file:src/a.ts", "removed"], ["file:src/b.ts", "new"]]);
    assert.match(next.delta.text, /\(src\/a\.ts is no longer in context\.\)/);
    const chosen = planContext(ledger, input([file("src/b.ts", body("b"))], { chosen: new Set(["file:src/b.ts"]) }), budget);
    assert.doesNotMatch(chosen.delta.text, /no longer in context/, "a note the chips did not show is not sent");
    const aside = planContext(ledger, input([file("src/b.ts", body("b"))], { setAside: new Set(["file:src/a.ts"]) }), budget);
    assert.doesNotMatch(aside.delta.text, /no longer in context/);
    assert.deepEqual(aside.chips.map((c) => c.id), ["file:src/b.ts"]);
  });
});
