// Loads shared between chats (core/shared-loads.ts: engines, the default model's fetch): one
// caller giving up ends only its own wait; the load is aborted when the last waiter has gone;
// a load that completes after it was abandoned, or after dispose, is freed at once; a failed
// load is tried again by the next caller. Ordered with deferred promises, no timers.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CancelledError } from "../../src/extension/core/errors";
import { SharedLoads } from "../../src/extension/core/shared-loads";
import { deferred } from "../support/deferred";


/** A load the test finishes by hand; it records the signal it was given. */
function gatedLoad() {
  const done = deferred<string>();
  const signals: AbortSignal[] = [];
  return {
    done,
    signals,
    start: (signal: AbortSignal) => {
      signals.push(signal);
      return done.promise;
    },
  };
}

describe("SharedLoads", () => {
  it("one waiter's Stop ends its wait only; the other gets the value; the last release frees it once", async () => {
    const freed: string[] = [];
    const loads = new SharedLoads<string>((v) => freed.push(v));
    const load = gatedLoad();
    const stopFirst = new AbortController();
    const first = loads.acquire("k", load.start, stopFirst.signal);
    const second = loads.acquire("k", () => assert.fail("loaded twice"));
    stopFirst.abort();
    await assert.rejects(first, CancelledError);
    assert.equal(load.signals[0].aborted, false, "still wanted by the second waiter");
    load.done.resolve("engine");
    const lease = await second;
    assert.equal(lease.value, "engine");
    assert.deepEqual(loads.loadedValues(), ["engine"]);
    lease.release();
    lease.release();
    assert.deepEqual(freed, ["engine"]);
    assert.equal(loads.size, 0);
  });

  it("the last waiter gone aborts the load; a value it still brings is freed; the next caller loads anew", async () => {
    const freed: string[] = [];
    const loads = new SharedLoads<string>((v) => freed.push(v));
    const load = gatedLoad();
    const stop = new AbortController();
    const waiting = loads.acquire("k", load.start, stop.signal);
    stop.abort();
    await assert.rejects(waiting, CancelledError);
    assert.equal(load.signals[0].aborted, true);
    assert.equal(loads.size, 0);
    load.done.resolve("late"); // a load that finished regardless
    await load.done.promise;
    await Promise.resolve();
    assert.deepEqual(freed, ["late"]);
    const again = gatedLoad();
    again.done.resolve("fresh");
    assert.equal((await loads.acquire("k", again.start)).value, "fresh");
  });

  it("a failed load fails every waiter and is tried again by the next caller", async () => {
    const loads = new SharedLoads<string>();
    const load = gatedLoad();
    const a = loads.acquire("k", load.start);
    const b = loads.acquire("k", load.start);
    load.done.reject(new Error("no server"));
    await assert.rejects(a, /no server/);
    await assert.rejects(b, /no server/);
    assert.equal(loads.size, 0);
    const again = gatedLoad();
    again.done.resolve("ok");
    assert.equal((await loads.acquire("k", again.start)).value, "ok");
  });

  it("dispose aborts loads under way and frees loaded values; a waiter is told it was cancelled", async () => {
    const freed: string[] = [];
    const loads = new SharedLoads<string>((v) => freed.push(v));
    const loaded = gatedLoad();
    loaded.done.resolve("held");
    const lease = await loads.acquire("a", loaded.start);
    const loading = gatedLoad();
    const waiting = loads.acquire("b", loading.start);
    loads.dispose();
    assert.equal(loading.signals[0].aborted, true);
    loading.done.resolve("late");
    await assert.rejects(waiting, CancelledError);
    assert.deepEqual(freed.sort(), ["held", "late"]);
    lease.release();
    assert.equal(freed.length, 2, "a release after dispose frees nothing twice");
  });

  it("the last waiter's Stop landing as the load finishes frees the value instead of keeping it with no user", async () => {
    const freed: string[] = [];
    const loads = new SharedLoads<string>((v) => freed.push(v));
    const load = gatedLoad();
    const stop = new AbortController();
    const waiting = loads.acquire("m", load.start, stop.signal);
    // The load completes and the Stop lands before the waiter resumes.
    load.done.resolve("engine");
    stop.abort();
    await assert.rejects(waiting, CancelledError);
    assert.deepEqual(freed, ["engine"]);
    assert.deepEqual(loads.loadedValues(), []);
  });
});
