// DESIGN.md's "Words" and the code agree: every type the glossary names is exported by the file
// it names, "session" is one thing (the KV state and its ledger: only the session's own types
// start with it), the names it retired are gone, and the cache and the transcript each have one
// verb for coming back (restore, reopen).

import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { it } from "node:test";

const ROOT = resolve(__dirname, "..", "..");
const PRODUCT = [join(ROOT, "src", "extension"), join(ROOT, "src", "webview")];

/** The (type, file) pairs the glossary names, as "`Type` (`path`)" with path under src/extension/. */
export function glossaryTypes(design: string): Array<{ type: string; file: string }> {
  const start = design.indexOf("## Words");
  assert.ok(start >= 0, "DESIGN.md has a Words section");
  const words = design.slice(start, design.indexOf("\n## ", start + 5));
  return [...words.matchAll(/`([A-Z][A-Za-z]+)`\s+\(`([a-z][\w/-]+\.ts)`/g)].map((m) => ({ type: m[1]!, file: m[2]! }));
}

function productFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? productFiles(path) : name.endsWith(".ts") ? [path] : [];
  });
}

/** Exported classes, interfaces and types of one source text. */
export function exportedTypes(source: string): string[] {
  return [...source.matchAll(/^export (?:abstract )?(?:class|interface|type) ([A-Za-z_]\w*)/gm)].map((m) => m[1]!);
}

/** Names that break the glossary: a retired name, or "Session" used for anything but the session's own types. */
export function misnamed(names: readonly string[]): string[] {
  const retired = new Set(["ChatSession", "PanelSession", "SessionSlot", "SessionPool", "NativeSession"]);
  return names.filter((name) => retired.has(name) || (name.includes("Session") && !name.startsWith("Session")));
}

const design = readFileSync(join(ROOT, "DESIGN.md"), "utf8");
const sources = PRODUCT.flatMap(productFiles).map((path) => ({ path, text: readFileSync(path, "utf8") }));

it("every type the glossary names is exported by the file it names", () => {
  const named = glossaryTypes(design);
  assert.ok(named.length >= 10, `glossary types found: ${named.length}`);
  for (const { type, file } of named) {
    const text = readFileSync(join(ROOT, "src", "extension", file), "utf8");
    assert.ok(exportedTypes(text).includes(type), `${file} does not export ${type}`);
  }
});

it("the ladder's own words are in the glossary: engine, KV state, ledger, session, conversation, chat", () => {
  const types = new Set(glossaryTypes(design).map((t) => t.type));
  for (const type of ["Engine", "KvState", "Ledger", "Session", "Conversation", "ChatPanel", "RequestPool"]) assert.ok(types.has(type), type);
});

it("'session' names one thing, and the retired names are gone from the product", () => {
  const offenders = sources.flatMap(({ path, text }) => misnamed(exportedTypes(text)).map((name) => `${relative(ROOT, path)}: ${name}`));
  assert.deepEqual(offenders, []);
  assert.deepEqual(misnamed(["Session", "SessionQueue", "Conversation"]), [], "the rule accepts the session's own types");
  assert.deepEqual(misnamed(["ChatSession", "PanelSession", "RemoteSessionThing"]), ["ChatSession", "PanelSession", "RemoteSessionThing"], "and refuses the others");
});

it("one verb brings a cache back (restore) and one a chat (reopen): no method named resume or revive", () => {
  const verbs = /^\s+(?:static\s+)?(?:async\s+)?(?:resume|revive)\w*\s*\(/m;
  const offenders = sources.filter(({ text }) => verbs.test(text)).map(({ path }) => relative(ROOT, path));
  assert.deepEqual(offenders, []);
  assert.ok(verbs.test("  static async revive(surface: ChatSurface) {"), "the pattern finds a revive method");
});
