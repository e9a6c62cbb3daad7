// CI's version of the soak (test/soak/soak.ts): 500 randomized operations with engine kills,
// reopen-restores, settings changes and Stops aimed at each phase of a turn; no corruption, no
// lost transcript, no overlap, no text after a Stop beyond the token in flight.

import assert from "node:assert/strict";
import { it } from "node:test";
import { runSoak } from "../soak/soak";
import { STOP_PHASES } from "../soak/stop-phases";

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
  // Stop pressed as a turn entered each phase (the overflow's summary, the prefill, the reply,
  // an engine restart): by event order, at most one text chunk after it (its time is in the report, not asserted).
  for (const phase of STOP_PHASES) {
    const stops = figures.stopByPhase[phase];
    assert.ok(stops.stopped > 0, `no Stop landed in ${phase}: ${JSON.stringify(stops)}`);
    assert.ok(stops.maxChunksAfterStop <= 1, `${phase}: ${stops.maxChunksAfterStop} text chunks after Stop`);
  }
});
