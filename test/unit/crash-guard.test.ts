// The engine process restart policy: backoff that grows with recent crashes, and a stop
// after too many within the window (a crash loop never spins).
import assert from "node:assert/strict";
import { it } from "node:test";
import { CrashGuard } from "../../src/extension/engine-host/crash-guard";

it("restarts at once after no crash and backs off after each recent one", () => {
  const guard = new CrashGuard({ maxCrashes: 5, windowMs: 60_000, baseDelayMs: 250, maxDelayMs: 8_000 });
  assert.deepEqual(guard.decide(0), { restart: true, delayMs: 0 });
  guard.crashed(1_000);
  assert.deepEqual(guard.decide(1_000), { restart: true, delayMs: 250 });
  assert.deepEqual(guard.decide(1_100), { restart: true, delayMs: 150 }, "time since the crash counts");
  guard.crashed(2_000);
  guard.crashed(3_000);
  assert.deepEqual(guard.decide(3_000), { restart: true, delayMs: 1_000 });
});

it("stops after maxCrashes within the window and says why", () => {
  const guard = new CrashGuard({ maxCrashes: 3, windowMs: 60_000 });
  for (const t of [0, 10_000, 20_000]) guard.crashed(t);
  const decision = guard.decide(20_000);
  assert.equal(decision.restart, false);
  assert.match(decision.restart ? "" : decision.reason, /crashed 3 times within 60 s/);
});

it("forgets crashes older than the window", () => {
  const guard = new CrashGuard({ maxCrashes: 2, windowMs: 60_000 });
  guard.crashed(0);
  guard.crashed(1_000);
  assert.equal(guard.decide(2_000).restart, false);
  assert.equal(guard.decide(61_500).restart, true, "the first crash left the window");
  assert.equal(guard.recent(200_000), 0);
});
