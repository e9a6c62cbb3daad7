// CI's version of the soak (test/soak/soak.ts): 500 randomized operations with engine kills,
// reopen-restores and settings changes; no corruption, no lost transcript, no overlap.

import assert from "node:assert/strict";
import { it } from "node:test";
import { runSoak } from "../soak/soak";

it("500 randomized operations: ledger == cache at every checkpoint, every transcript intact", { timeout: 15 * 60_000 }, async () => {
  const figures = await runSoak({ operations: 500, seed: 11 });
  console.log(`      soak: ${JSON.stringify(figures)}`);
  assert.deepEqual(figures.unexpectedErrors, []);
  assert.equal(figures.corruptions, 0);
  // The engine's own count was compared after most operations (the rest cancelled by a reset or a kill), the logits at every checkpoint.
  assert.ok(figures.cacheProbes.compared > 200 && figures.cacheProbes.mismatches === 0, `cache probes: ${JSON.stringify(figures.cacheProbes)}`);
  assert.ok(figures.logitChecks >= 8 && figures.logitMismatches === 0, `logit checks ${figures.logitChecks}, mismatches ${figures.logitMismatches}`);
  assert.equal(figures.lostTranscripts, 0);
  assert.equal(figures.overlaps, 0);
  assert.ok(figures.kills > 5 && figures.turnsFailedByCrash > 0, `kills ${figures.kills}, turns failed by a crash ${figures.turnsFailedByCrash}`);
  assert.ok(figures.restores.snapshot > 0, `restores from a snapshot: ${figures.restores.snapshot}`);
  assert.ok(figures.turnsCompleted > 100, `turns completed: ${figures.turnsCompleted}`);
});
