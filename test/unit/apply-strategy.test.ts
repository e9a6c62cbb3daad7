// Apply's strategy, cheapest first: whole file, a fragment anchored by its first and last
// lines to exactly one region (re-indented to it), a fragment anchored by the one symbol it
// defines, else fast apply; refusals (several regions, a file changed since the model saw
// it, an empty block) change nothing and say why.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { anchoredRegions, definedSymbol, hasElision, planApply, type ApplyPlan, type SymbolRange } from "../../src/extension/core/apply/strategy";
import { minimalEdit } from "../../src/extension/core/apply/minimal-edit";
import { fromLines, toLines } from "../../src/extension/core/apply/lines";

const FILE = [
  "import { clamp } from './math';",
  "",
  "export const MAX = 10;",
  "",
  "export function limit(value: number): number {",
  "  if (value > MAX) {",
  "    return MAX;",
  "  }",
  "  return value;",
  "}",
  "",
  "export class Counter {",
  "  private count = 0;",
  "",
  "  increment(by: number): void {",
  "    this.count += by;",
  "  }",
  "",
  "  get value(): number {",
  "    return this.count;",
  "  }",
  "}",
  "",
].join("\n");

function edited(plan: ApplyPlan): string {
  assert.equal(plan.kind, "edit", JSON.stringify(plan));
  return (plan as Extract<ApplyPlan, { kind: "edit" }>).text;
}

describe("apply strategy", () => {
  it("a new or empty file becomes the block", () => {
    const plan = planApply({ original: undefined, code: "export const A = 1;\n" });
    assert.deepEqual(plan, { kind: "edit", strategy: "whole", text: "export const A = 1;\n", region: { start: 0, end: 0 } });
    assert.equal(edited(planApply({ original: "\n", code: "x = 1" })), "x = 1\n");
  });

  it("a block that starts and ends like the file, or holds most of its lines, is the whole file", () => {
    const whole = FILE.replace("export const MAX = 10;", "export const MAX = 20;").replace(/\n$/, "");
    const plan = planApply({ original: FILE, code: whole });
    assert.equal(plan.kind === "edit" && plan.strategy, "whole");
    assert.equal(edited(plan), FILE.replace("MAX = 10", "MAX = 20"), "the file's final newline is kept");
    // A new first line (an import added) and the rest of the file: still the whole file.
    const withImport = `import { log } from './log';\n${FILE.replace("return value;", "log(value);\n  return value;")}`;
    const plan2 = planApply({ original: FILE, code: withImport });
    assert.equal(plan2.kind === "edit" && plan2.strategy, "whole");
    assert.equal(edited(plan2), withImport);
  });

  it("a fragment whose first and last lines anchor to one region replaces it", () => {
    const code = ["export function limit(value: number): number {", "  return Math.min(value, MAX);", "}"].join("\n");
    const plan = planApply({ original: FILE, code });
    assert.equal(plan.kind === "edit" && plan.strategy, "anchored");
    assert.deepEqual((plan as Extract<ApplyPlan, { kind: "edit" }>).region, { start: 4, end: 10 });
    assert.equal(edited(plan), FILE.replace("  if (value > MAX) {\n    return MAX;\n  }\n  return value;", "  return Math.min(value, MAX);"));
  });

  it("the tail must sit at the head's relative indentation: an inner '}' does not end the function", () => {
    const lines = toLines(FILE).lines;
    const regions = anchoredRegions(lines, ["export function limit(value: number): number {", "  return 1;", "}"]);
    assert.deepEqual(regions, [{ start: 4, end: 10 }]);
  });

  it("a dedented method is re-indented to where it goes", () => {
    const code = ["increment(by: number): void {", "  this.count += by * 2;", "}"].join("\n");
    const plan = planApply({ original: FILE, code });
    assert.equal(plan.kind === "edit" && plan.strategy, "anchored");
    assert.ok(edited(plan).includes("  increment(by: number): void {\n    this.count += by * 2;\n  }\n"), edited(plan));
  });

  it("CRLF files stay CRLF", () => {
    const crlf = FILE.replace(/\n/g, "\r\n");
    const code = "export function limit(value: number): number {\n  return 0;\n}";
    const text = edited(planApply({ original: crlf, code }));
    assert.ok(!/[^\r]\n/.test(text), "every line break is CRLF");
    assert.ok(text.includes("{\r\n  return 0;\r\n}\r\n"));
  });

  it("the same block already in the file changes nothing", () => {
    const code = ["  get value(): number {", "    return this.count;", "  }"].join("\n");
    assert.deepEqual(planApply({ original: FILE, code }), { kind: "unchanged", strategy: "anchored" });
  });

  it("anchors that match several regions are refused, offering fast apply", () => {
    const twice = `${FILE}\nexport function limit(value: number): number {\n  return value;\n}\n`;
    const plan = planApply({ original: twice, code: "export function limit(value: number): number {\n  return 0;\n}", label: "src/limits.ts" });
    assert.equal(plan.kind, "refused");
    assert.equal(plan.kind === "refused" && plan.reason, "ambiguous");
    assert.match(plan.kind === "refused" ? plan.message : "", /src\/limits\.ts.* 2 regions \(lines 5–10, 24–26\)/);
    assert.ok(plan.kind === "refused" && plan.fastRegion);
  });

  it("a fragment that defines one symbol replaces that symbol's range when its first line changed", () => {
    const code = ["export function limit(value: number, max = MAX): number {", "  return Math.min(value, max);", "}"].join("\n");
    const symbols: SymbolRange[] = [
      { name: "MAX", startLine: 2, endLine: 2, depth: 0 },
      { name: "limit", startLine: 4, endLine: 9, depth: 0 },
      { name: "Counter", startLine: 11, endLine: 21, depth: 0 },
      { name: "increment", startLine: 14, endLine: 16, depth: 1 },
    ];
    assert.equal(planApply({ original: FILE, code }).kind, "fast", "without symbols: fast apply");
    const plan = planApply({ original: FILE, code, symbols });
    assert.equal(plan.kind === "edit" && plan.strategy, "symbol");
    assert.equal(edited(plan), FILE.replace(/export function limit[\s\S]*?\n}\n/, `${code}\n`));
    // A method: re-indented to the method's place.
    const method = ["increment(by = 1): void {", "  this.count += by;", "}"].join("\n");
    const plan2 = planApply({ original: FILE, code: method, symbols });
    assert.equal(plan2.kind === "edit" && plan2.strategy, "symbol");
    assert.ok(edited(plan2).includes("  increment(by = 1): void {\n    this.count += by;\n  }\n\n  get value"), edited(plan2));
    // Two symbols of that name: no symbol anchor.
    assert.equal(planApply({ original: FILE, code, symbols: [...symbols, { name: "limit", startLine: 12, endLine: 12, depth: 1 }] }).kind, "edit", "the top-level one wins for a top-level block");
    assert.equal(planApply({ original: FILE, code: method, symbols: [...symbols, { name: "increment", startLine: 18, endLine: 20, depth: 1 }] }).kind, "fast");
  });

  it("names the symbol a block defines, in several languages", () => {
    const name = (line: string) => definedSymbol([line]);
    assert.equal(name("export async function load(path: string) {"), "load");
    assert.equal(name("export default class Store<T> {"), "Store");
    assert.equal(name("export const area = (w: number) => w * 2;"), "area");
    assert.equal(name("interface Shape {"), "Shape");
    assert.equal(name("async def fetch(url):"), "fetch");
    assert.equal(name("pub fn parse(input: &str) -> Result<()> {"), "parse");
    assert.equal(name("func (s *Server) Serve(l net.Listener) error {"), "Serve");
    assert.equal(name("  private async save(item: Item): Promise<void> {"), "save");
    assert.equal(name("if (value > MAX) {"), undefined);
    assert.equal(definedSymbol(["/** Docs. */", "@decorator()", "function f() {"]), "f");
  });

  it("a file changed since the model saw it: refused when the block matched what it saw, offering fast apply", () => {
    const seen = FILE;
    const now = FILE.replace("export function limit(value: number): number {", "export function limit(value: number, max: number): number {");
    const code = "export function limit(value: number): number {\n  return 0;\n}";
    const plan = planApply({ original: now, code, seen, label: "src/limits.ts" });
    assert.equal(plan.kind === "refused" && plan.reason, "changed", JSON.stringify(plan));
    assert.match(plan.kind === "refused" ? plan.message : "", /src\/limits\.ts changed since the reply/);
    // Never seen, or unchanged since: fast apply.
    assert.equal(planApply({ original: now, code }).kind, "fast");
  });

  it("a block that leaves lines out ('// ...') goes to fast apply, on the symbol's region when known", () => {
    assert.equal(hasElision(["class A {", "  // ... existing code ...", "}"]), true);
    assert.equal(hasElision(["def f():", "    # rest of the function unchanged", "    return 1"]), true);
    assert.equal(hasElision(["const a = [1, 2, 3];", "// Spread: ...args"]), false);
    const code = ["export class Counter {", "  // ...", "  reset(): void {", "    this.count = 0;", "  }", "}"].join("\n");
    const plan = planApply({ original: FILE, code, symbols: [{ name: "Counter", startLine: 11, endLine: 21, depth: 0 }] });
    assert.equal(plan.kind, "fast");
    assert.deepEqual(plan.kind === "fast" && plan.region, { start: 9, end: 22 });
  });

  it("an empty block is refused", () => {
    assert.equal(planApply({ original: FILE, code: "\n  \n" }).kind, "refused");
  });

  it("fast apply when nothing anchors (the whole file, or the symbol around the block's head)", () => {
    const plan = planApply({ original: FILE, code: "export function other(): void {}\n" });
    assert.deepEqual(plan, { kind: "fast", region: { start: 0, end: toLines(FILE).lines.length }, why: "no anchor" });
    assert.equal(planApply({ original: FILE, code: "anything", forceFast: true }).kind, "fast");
  });
});

describe("minimal edit", () => {
  it("replaces only the changed whole lines", () => {
    const before = "a\nb\nc\nd\n";
    const after = "a\nB\nc\nd\n";
    const edit = minimalEdit(before, after)!;
    assert.deepEqual(edit, { start: 2, end: 4, text: "B\n" });
    assert.equal(before.slice(0, edit.start) + edit.text + before.slice(edit.end), after);
    assert.equal(minimalEdit(before, before), undefined);
    for (const [x, y] of [["", "a\n"], ["a\n", ""], ["a", "ab"], ["a\nb", "a\nb\nc"], ["x\ny\n", "y\n"], ["ab\r\ncd\r\n", "ab\r\nce\r\n"]]) {
      const e = minimalEdit(x!, y!)!;
      assert.equal(x!.slice(0, e.start) + e.text + x!.slice(e.end), y, JSON.stringify([x, y]));
      assert.ok(e.start === 0 || x![e.start - 1] === "\n");
    }
  });

  it("lines round-trip", () => {
    for (const text of ["", "a", "a\n", "a\r\nb\r\n", "a\n\nb"]) {
      const lines = toLines(text);
      assert.equal(fromLines(lines.lines, lines.eol, lines.finalEol), text);
    }
  });
});
