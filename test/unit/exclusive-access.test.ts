// The one busy guard every KV state uses: an overlapping call is refused (not queued, not
// interleaved), a call after dispose is refused, a failure frees the guard and is mapped.

import assert from "node:assert/strict";
import { it } from "node:test";
import { ConcurrentAccessError, DisposedError, EngineFailedError } from "../../src/extension/core/errors";
import { ExclusiveAccess } from "../../src/extension/core/exclusive-access";

it("refuses an overlapping call, then serves the next one", async () => {
  const access = new ExclusiveAccess("test state");
  let release!: () => void;
  const first = access.run(() => new Promise<string>((resolve) => (release = () => resolve("first"))));
  assert.equal(access.busy, true);
  await assert.rejects(access.run(async () => "second"), ConcurrentAccessError);
  release();
  assert.equal(await first, "first");
  assert.equal(access.busy, false);
  assert.equal(await access.run(async () => "third"), "third");
});

it("maps a failure and frees the guard", async () => {
  const access = new ExclusiveAccess("test state", undefined, (error) => new EngineFailedError(`mapped: ${String(error)}`));
  await assert.rejects(access.run(async () => Promise.reject(new Error("native"))), (error: unknown) => error instanceof EngineFailedError && /mapped: Error: native/.test(error.message));
  assert.equal(access.busy, false);
});

it("refuses every call once its owner is disposed", async () => {
  let disposed = false;
  const access = new ExclusiveAccess("test state", () => disposed);
  assert.equal(await access.run(async () => 1), 1);
  disposed = true;
  let ran = false;
  await assert.rejects(access.run(async () => (ran = true)), DisposedError);
  assert.equal(ran, false);
});
