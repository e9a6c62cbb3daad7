// When a provider request's prefill gets a progress notification, and what it says
// (shell/lm/prefill-notice.ts), on an injected clock: a long prefill at once, a shorter one only
// once it has taken 2 s with as long again to go, a short one never; the increments add up to
// the whole.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PREFILL_NOTICE_AFTER_MS, PREFILL_NOTICE_TOKENS, PrefillNoticePlan, prefillMessage } from "../../src/extension/shell/lm/prefill-notice";

/** A plan on a clock the test moves. */
function planAt(): { plan: PrefillNoticePlan; clock: { now: number } } {
  const clock = { now: 1_000 };
  return { plan: new PrefillNoticePlan(() => clock.now), clock };
}

/** Feeds a prefill of `total` tokens in `chunk`s, `msPerChunk` apart; the steps shown. */
function run(total: number, chunk: number, msPerChunk: number) {
  const { plan, clock } = planAt();
  const steps: Array<{ done: number; message: string; increment: number }> = [];
  const report = (done: number) => {
    const step = plan.report(done, total);
    if (step) steps.push({ done, ...step });
  };
  report(0);
  for (let done = 0; done < total; ) {
    done = Math.min(total, done + chunk);
    clock.now += msPerChunk;
    report(done);
  }
  return { steps, shown: plan.shown };
}

describe("a prefill's progress notification", () => {
  it("a long prefill is shown at once, then every chunk, ending at the whole", () => {
    const { steps } = run(15_622, 128, 4_000);
    assert.equal(steps[0].done, 0, "shown before the first chunk");
    assert.equal(steps[0].message, "Reading the prompt: 0 / 15,622 tokens");
    assert.equal(steps.at(-1)!.message, "Reading the prompt: 15,622 / 15,622 tokens");
    assert.equal(steps.length, 1 + Math.ceil(15_622 / 128));
    const sum = steps.reduce((a, s) => a + s.increment, 0);
    assert.ok(Math.abs(sum - 100) < 1e-9, `increments add up to 100 (${sum})`);
    assert.ok(steps.every((s) => s.increment >= 0));
  });

  it("a shorter, slow one is shown once it has taken 2 s with as long to go, its increment catching up", () => {
    // 1,500 tokens at 32 tokens/s (the 1.5B on 2 cores): the first chunk's report comes at 4 s.
    const { steps } = run(1_500, 128, 4_000);
    assert.ok(1_500 <= PREFILL_NOTICE_TOKENS);
    assert.equal(steps[0].done, 128, "not at the start, at the first report past 2 s");
    assert.equal(steps[0].message, "Reading the prompt: 128 / 1,500 tokens");
    assert.ok(Math.abs(steps[0].increment - (100 * 128) / 1_500) < 1e-9);
    assert.equal(steps.at(-1)!.done, 1_500);
  });

  it("a fast one, or one nearly done by 2 s, is never shown", () => {
    assert.equal(run(1_500, 128, 50).shown, false, "done in under a second");
    // 2,000 tokens, 1,900 of them in the first 2.5 s: 0.13 s to go.
    const { plan, clock } = planAt();
    assert.equal(plan.report(0, 2_000), undefined);
    clock.now += PREFILL_NOTICE_AFTER_MS + 500;
    assert.equal(plan.report(1_900, 2_000), undefined);
    assert.equal(plan.report(2_000, 2_000), undefined);
    assert.equal(plan.shown, false);
  });

  it("just over 2,000 tokens is shown at once, just under waits", () => {
    assert.ok(planAt().plan.report(0, PREFILL_NOTICE_TOKENS + 1));
    assert.equal(planAt().plan.report(0, PREFILL_NOTICE_TOKENS), undefined);
  });

  it("writes counts with thousands separators", () => {
    assert.equal(prefillMessage(3_200, 15_622), "Reading the prompt: 3,200 / 15,622 tokens");
  });
});
