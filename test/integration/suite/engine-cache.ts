// Ledger == cache from the engine's side: the panel's ledger against what the engine itself
// says its KV cache holds (KvState.probeCache, answered in the engine process by llama.cpp's
// positions for the sequence). `panel.position` is the ledger's own length, so comparing it
// with `ledgerLength` could never fail.

import * as assert from "node:assert/strict";
import type { TestingPanel } from "../../../src/extension/shell/testing/testing-api";

/** After a finished turn: the engine holds exactly the ledger's tokens, from position 0. */
export async function assertEngineHoldsLedger(panel: TestingPanel): Promise<void> {
  const check = await panel.probeCache();
  assert.ok(check, "the panel has a session");
  assert.ok(check.probe, "the engine answers the cache probe");
  assert.equal(check.resyncPending, false, "the session does not see its state lost");
  assert.equal(check.evaluated, panel.ledgerLength, "a finished turn leaves no ledger token pending");
  assert.equal(check.probe.held, panel.ledgerLength, `the engine's own count (${check.probe.source}) == ledger length`);
  assert.equal(check.mismatch, undefined);
}
