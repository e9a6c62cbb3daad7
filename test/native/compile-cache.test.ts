// The compile cache on a package bigger than fs.readFile allows, and found again without
// reading any weights; compile failures reach callers as typed errors.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import type { CoreMLAddon } from "../../src/extension/backends/coreml/addon";
import { compiledModelFor, hashModelPackage } from "../../src/extension/backends/coreml/compile-cache";
import { loadCoreMLEngine } from "../../src/extension/backends/coreml/index";
import { StatefulChatError } from "../../src/extension/core/errors";
import { makeModelFolder } from "./fixtures";

const scratch = mkdtempSync(path.join(os.tmpdir(), "coreml-cache-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A compiler that records its calls and writes a marker folder like compileModelAtURL. */
function fakeCompiler(): Pick<CoreMLAddon, "compileModel"> & { calls: number } {
  const fake = {
    calls: 0,
    async compileModel(_source: string, destination: string): Promise<void> {
      fake.calls++;
      mkdirSync(destination, { recursive: true });
      writeFileSync(path.join(destination, "model.mil"), "compiled");
    },
  };
  return fake;
}

test("a sparse package over 2 GiB hashes by streaming, and a second load reads no weights", async () => {
  const pkg = path.join(scratch, "big.mlpackage");
  const weights = path.join(pkg, "Data", "com.apple.CoreML", "weights", "weight.bin");
  mkdirSync(path.dirname(weights), { recursive: true });
  writeFileSync(path.join(pkg, "Manifest.json"), "{}");
  writeFileSync(weights, "");
  truncateSync(weights, 2 * 1024 ** 3 + 200 * 1024 ** 2); // sparse: no disk used, but fs.readFile refuses it
  const mtime = new Date(Date.UTC(2026, 0, 1)); // whole seconds: restorable exactly by utimes
  utimesSync(weights, mtime, mtime);
  const cacheRoot = path.join(scratch, "cache");
  const compiler = fakeCompiler();

  const stages: string[] = [];
  const first = await compiledModelFor(compiler, pkg, { cacheRoot, onProgress: (stage) => stages.push(stage) });
  assert.deepEqual(stages, ["hashing", "compiling", "compiled"]);
  assert.equal(compiler.calls, 1);
  assert.match(first.contentHash, /^[0-9a-f]{64}$/);

  // Same size and mtime, different bytes: found from the fingerprint alone, so nothing was read.
  writeFileSync(weights, "changed", { flag: "r+" });
  utimesSync(weights, mtime, mtime);
  stages.length = 0;
  const second = await compiledModelFor(compiler, pkg, { cacheRoot, onProgress: (stage) => stages.push(stage) });
  assert.deepEqual(stages, ["cached"]);
  assert.equal(second.compiledPath, first.compiledPath);
  assert.equal(compiler.calls, 1);

  // A new mtime is a possibly different package: hashed again, and here it is different.
  utimesSync(weights, mtime, new Date(mtime.getTime() + 5000));
  stages.length = 0;
  const third = await compiledModelFor(compiler, pkg, { cacheRoot, onProgress: (stage) => stages.push(stage) });
  assert.deepEqual(stages, ["hashing", "compiling", "compiled"]);
  assert.notEqual(third.contentHash, first.contentHash);
});

test("the streamed hash covers paths and bytes in a stable order", async () => {
  const pkg = path.join(scratch, "small.mlpackage");
  mkdirSync(path.join(pkg, "b"), { recursive: true });
  writeFileSync(path.join(pkg, "a.json"), "A");
  writeFileSync(path.join(pkg, "b", "w.bin"), "WW");
  const expected = createHash("sha256").update("a.json\0A\0b/w.bin\0WW\0").digest("hex");
  assert.equal(await hashModelPackage(pkg), expected);
});

test("a failing compile rejects with a typed error, not a raw native one", async () => {
  const nativeFailure = Object.assign(new Error("cannot compile model.mlpackage: bad spec"), { code: "model_invalid" });
  const addon = {
    compileModel: () => Promise.reject(nativeFailure),
    loadModel: () => Promise.reject(new Error("not reached")),
  } as unknown as CoreMLAddon;
  await assert.rejects(
    loadCoreMLEngine({ modelPath: makeModelFolder(), computeUnits: "cpuAndGPU", cacheRoot: path.join(scratch, "typed"), addon }),
    (error: unknown) => {
      assert.ok(error instanceof StatefulChatError, `expected a StatefulChatError, got ${String(error)}`);
      assert.equal(error.code, "model_invalid");
      assert.match(error.message, /bad spec/);
      return true;
    },
  );
});
