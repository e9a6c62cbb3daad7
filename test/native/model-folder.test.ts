// The converter's manifest names a multifunction package's functions; the backend reads
// them from there (or from a stateful_chat.json sidecar) and loads with them.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { resolveModelFolder } from "../../src/extension/backends/coreml/model-folder";
import { makeModelFolder } from "./fixtures";

test("a manifest with functions names the prefill and decode functions", async () => {
  const folder = makeModelFolder();
  writeFileSync(path.join(folder, "manifest.json"), JSON.stringify({ context: 512, functions: { prefill: "prefill", decode: "decode", prefill_length: 64 } }));
  assert.deepEqual((await resolveModelFolder(folder)).functions, { prefill: "prefill", decode: "decode" });
});

test("a single-function manifest means the default function", async () => {
  const folder = makeModelFolder();
  writeFileSync(path.join(folder, "manifest.json"), JSON.stringify({ context: 512 }));
  assert.equal((await resolveModelFolder(folder)).functions, undefined);
});

test("a sidecar names functions of packages built elsewhere", async () => {
  const folder = makeModelFolder();
  writeFileSync(path.join(folder, "stateful_chat.json"), JSON.stringify({ functions: { prefill: "p64", decode: "d1" } }));
  assert.deepEqual((await resolveModelFolder(folder)).functions, { prefill: "p64", decode: "d1" });
});

test("a corrupt manifest is a typed model error", async () => {
  const folder = makeModelFolder();
  writeFileSync(path.join(folder, "manifest.json"), "{ not json");
  await assert.rejects(resolveModelFolder(folder), { code: "model_invalid" });
});
