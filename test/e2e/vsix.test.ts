// The packaged VSIX is lean and self-sufficient: it holds the bundle, the webview assets and
// node-llama-cpp with only this platform's prebuilts (CPU and, on x64 Linux, Vulkan), and, extracted outside the repo, it
// loads the default model with Node 24 (the extension host's Node) from its own node_modules.

import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { hostTarget, TARGET_SPECS } from "../../src/tools/packaging/targets";
import { vsixFor } from "./support/shared-vsix";
import { log, provision, type Provisioned } from "../integration/harness/provision";
import { extractVsix, vsixFiles } from "./support/vsix-contents";

/** Loads node-llama-cpp exactly as the extension does (ESM import, prebuilt CPU binary only). */
const LOAD_CHECK = `
const { getLlama } = await import("node-llama-cpp");
const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
const model = await llama.loadModel({ modelPath: process.argv[2] });
const tokens = model.tokenize("Hello, world");
console.log(JSON.stringify({ resolved: import.meta.resolve("node-llama-cpp"), tokens: tokens.length }));
await model.dispose();
await llama.dispose();
`;

describe("the VSIX", { timeout: 10 * 60_000 }, () => {
  let env: Provisioned;
  let vsix: string;
  let files: string[];
  const cleanup: string[] = [];

  before(async () => {
    env = await provision();
    vsix = (await vsixFor(env.paths.repo, join(env.paths.runs, "vsix-check", "stateful-chat.vsix"), log)).path;
    files = vsixFiles(vsix);
  });
  after(() => {
    for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
  });

  it("contains the bundle, webview assets and node-llama-cpp with this platform's binary", () => {
    for (const required of ["package.json", "out/extension.js", "out/extension-features.js", "node_modules/node-llama-cpp/package.json"]) {
      assert.ok(files.includes(required), `missing ${required}`);
    }
    assert.ok(files.some((f) => f.startsWith("media/")), "no media/");
    for (const prebuilt of TARGET_SPECS[hostTarget()].prebuilts) {
      assert.ok(files.some((f) => f.startsWith(`node_modules/@node-llama-cpp/${prebuilt}/`)), `no @node-llama-cpp/${prebuilt} binary`);
    }
  });

  it("leaves out sources, tests, caches and other platforms' binaries", () => {
    const forbidden = [/^src\//, /^test\//, /^models\//, /^\.cache\//, /^test-artifacts\//, /^native\/(?!build\/Release\/[^/]+\.node$)/, /\.map$/, /\.gguf$/];
    assert.deepEqual(files.filter((f) => forbidden.some((re) => re.test(f))), []);
    const binaries = new Set(files.filter((f) => f.startsWith("node_modules/@node-llama-cpp/")).map((f) => f.split("/")[2]));
    assert.deepEqual([...binaries].sort(), [...TARGET_SPECS[hostTarget()].prebuilts].sort());
    assert.ok(!files.some((f) => f.endsWith("gitRelease.bundle")), "llama.cpp source bundle shipped");
  });

  it("stays small", () => {
    const mb = statSync(vsix).size / 1e6;
    log(`VSIX ${mb.toFixed(1)} MB, ${files.length} files`);
    const budget = TARGET_SPECS[hostTarget()].budgetMegabytes;
    assert.ok(mb < budget, `VSIX is ${mb.toFixed(1)} MB, over its budget of ${budget} MB`);
  });

  it("loads the default model from its own node_modules, extracted outside the repo", () => {
    const { root, extension } = extractVsix(vsix);
    cleanup.push(root);
    const script = join(extension, "load-check.mjs");
    writeFileSync(script, LOAD_CHECK);
    const result = spawnSync(env.toolchain.node, [script, env.modelPath], { cwd: extension, encoding: "utf8", timeout: 5 * 60_000 });
    assert.equal(result.status, 0, `load check failed:\n${result.stdout}\n${result.stderr}`);
    const report = JSON.parse(result.stdout.trim().split("\n").pop() ?? "{}") as { resolved?: string; tokens?: number };
    assert.ok(report.resolved?.includes(root), `node-llama-cpp resolved outside the VSIX: ${report.resolved}`);
    assert.ok((report.tokens ?? 0) > 0);
  });
});
