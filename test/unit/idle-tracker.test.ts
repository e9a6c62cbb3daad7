// When the language model provider lets a model go: unused for the idle time, never while a
// request runs on it, never with an idle time of 0.

import assert from "node:assert/strict";
import { it } from "node:test";
import { IdleTracker } from "../../src/extension/core/request-pool/idle-tracker";

const MINUTE = 60_000;

function clocked(): { tracker: IdleTracker<string>; advance(ms: number): void } {
  let now = 0;
  return { tracker: new IdleTracker<string>(() => now), advance: (ms) => (now += ms) };
}

it("a pool unused for the idle time is idle; one used since is not", () => {
  const { tracker, advance } = clocked();
  tracker.begin("a");
  tracker.end("a");
  tracker.begin("b");
  tracker.end("b");
  advance(10 * MINUTE);
  tracker.begin("b");
  tracker.end("b");
  advance(5 * MINUTE);
  assert.deepEqual(tracker.idle(15 * MINUTE), ["a"]);
  assert.deepEqual(tracker.idle(20 * MINUTE), []);
});

it("a pool with a request running (or two, one ended) is never idle, however long it runs", () => {
  const { tracker, advance } = clocked();
  tracker.begin("a");
  tracker.begin("a");
  tracker.end("a");
  advance(60 * MINUTE);
  assert.deepEqual(tracker.idle(15 * MINUTE), []);
  tracker.end("a");
  assert.deepEqual(tracker.idle(15 * MINUTE), [], "idle time counts from the end of the last request");
  advance(15 * MINUTE);
  assert.deepEqual(tracker.idle(15 * MINUTE), ["a"]);
});

it("an idle time of 0 never releases; a forgotten pool is not reported again", () => {
  const { tracker, advance } = clocked();
  tracker.begin("a");
  tracker.end("a");
  advance(1_000 * MINUTE);
  assert.deepEqual(tracker.idle(0), []);
  tracker.forget("a");
  assert.deepEqual(tracker.idle(MINUTE), []);
});
