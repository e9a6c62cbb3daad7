// Model discovery runs only when asked, once for everyone asking at the same time, and its
// result serves callers until it is old or invalidated; a scan that was overtaken by an
// invalidation is not kept. Clock and discovery are injected (no real folders, no sleeps).

import assert from "node:assert/strict";
import { it } from "node:test";
import { DiscoveryCache } from "../../src/extension/models/discovery/cache";
import type { DiscoveryResult } from "../../src/extension/models/discovery";
import { deferred } from "../support/deferred";


function scripted() {
  const calls: Array<ReturnType<typeof deferred<DiscoveryResult>>> = [];
  return {
    calls,
    discover: () => {
      const d = deferred<DiscoveryResult>();
      calls.push(d);
      return d.promise;
    },
  };
}

const result = (problem: string): DiscoveryResult => ({ models: [], problems: [problem] });

it("scans nothing until asked, and shares one scan among concurrent callers", async () => {
  const script = scripted();
  const cache = new DiscoveryCache({ discover: script.discover, now: () => 0 });
  assert.equal(script.calls.length, 0);
  const a = cache.get();
  const b = cache.get();
  assert.equal(script.calls.length, 1);
  script.calls[0]!.resolve(result("first"));
  assert.deepEqual(await a, result("first"));
  assert.deepEqual(await b, result("first"));
});

it("reuses a result until it is maxAgeMs old, then scans again", async () => {
  const script = scripted();
  let now = 1000;
  const cache = new DiscoveryCache({ discover: script.discover, now: () => now, maxAgeMs: 30_000 });
  const first = cache.get();
  script.calls[0]!.resolve(result("first"));
  await first;
  now += 29_999;
  assert.deepEqual(await cache.get(), result("first"));
  assert.equal(script.calls.length, 1);
  now += 1;
  const second = cache.get();
  assert.equal(script.calls.length, 2);
  script.calls[1]!.resolve(result("second"));
  assert.deepEqual(await second, result("second"));
});

it("after invalidate() the next caller gets a new scan, and a scan begun before it is not kept", async () => {
  const script = scripted();
  const cache = new DiscoveryCache({ discover: script.discover, now: () => 0 });
  const stale = cache.get();
  cache.invalidate();
  const fresh = cache.get();
  assert.equal(script.calls.length, 2);
  script.calls[1]!.resolve(result("fresh"));
  script.calls[0]!.resolve(result("stale"));
  assert.deepEqual(await stale, result("stale"));
  assert.deepEqual(await fresh, result("fresh"));
  assert.deepEqual(await cache.get(), result("fresh"));
  assert.equal(script.calls.length, 2);
});

it("a discovery that throws becomes a problem line, and the next call scans again", async () => {
  let calls = 0;
  const cache = new DiscoveryCache({ discover: async () => { calls++; throw new Error("boom"); }, now: () => 0 });
  assert.deepEqual(await cache.get(), { models: [], problems: ["model discovery failed: boom"] });
  await cache.get();
  assert.equal(calls, 2);
});
