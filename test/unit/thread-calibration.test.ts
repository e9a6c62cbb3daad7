import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { candidateThreadCounts, pickFastest } from "../../src/extension/backends/llamacpp/thread-calibration";

describe("thread calibration", () => {
  it("tries 1, powers of two and the core count", () => {
    assert.deepEqual(candidateThreadCounts(1), [1]);
    assert.deepEqual(candidateThreadCounts(2), [1, 2]);
    assert.deepEqual(candidateThreadCounts(6), [1, 2, 4, 6]);
    assert.deepEqual(candidateThreadCounts(8), [1, 2, 4, 8]);
  });

  it("picks the fastest, and fewer threads on a near tie", () => {
    assert.equal(pickFastest({ 1: 61, 2: 98 }), 2);
    assert.equal(pickFastest({ 1: 74, 2: 58 }), 1);
    assert.equal(pickFastest({ 1: 96, 2: 100 }), 1);
    assert.equal(pickFastest({ 1: 40, 2: 70, 4: 71 }), 2);
  });
});
