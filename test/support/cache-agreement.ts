// Invariant 1 (ledger == cache) checked two ways, both from the engine's side:
// - the count: what the engine says its cache holds (KvState.probeCache via Conversation), after
//   every operation, against the tokens the session evaluated;
// - the content: the next-token distribution at the last position from the cache against a
//   fresh prefill of the ledger, on a sample of turns (it costs a prefill).

import { isDeepStrictEqual } from "node:util";
import type { Conversation } from "../../src/extension/core/conversation";
import type { Engine, KvState } from "../../src/extension/core/engine";
import { freshDistributionAt, topGap, totalVariation } from "./instrumented-engine";

/**
 * A batch of another size may move probabilities by rounding (node-llama-cpp's prebuilt
 * kernels), so a small total variation is allowed, and the argmax must agree unless the top two
 * nearly tie. A cache that holds other tokens gives another distribution altogether.
 */
const MAX_TVD = 0.1;
const NEAR_TIE = 0.1;

/**
 * Our llama.cpp build (its grouped flash attention: src/tools/llama-build/patches/) computes a
 * token alone and in a batch of any size with the same arithmetic, so there the cache and a
 * fresh prefill agree bit for bit (test/model/core-invariants.test.ts) and a difference of any
 * size is a fault; a hole of one cell moves the distribution by far less than MAX_TVD.
 */
export function computesExactly(engine: Engine): boolean {
  return engine.info.backend === "llamacpp" && engine.info.details.includes("grouped flash attention");
}

/**
 * Why the cache's next-token distribution is not a fresh prefill's of `ledger`, or undefined
 * when it is: exactly equal top-5 where the engine computes exactly (computesExactly), else
 * within the tolerance above. Run it only while nothing else uses `state` (the chat idle): it
 * re-evaluates the last token, leaving the state holding `ledger` again.
 */
export async function cacheDiffersFromFreshPrefill(state: KvState, engine: Engine, ledger: readonly number[]): Promise<string | undefined> {
  if (!state.evaluateTopK) throw new Error("the backend has no evaluateTopK");
  await state.truncate(ledger.length - 1);
  const fromCache = await state.evaluateTopK([ledger[ledger.length - 1]!], 5);
  const fromFresh = await freshDistributionAt(engine, ledger);
  const tvd = totalVariation(fromCache, fromFresh);
  const shown = () => `TVD ${tvd.toExponential(2)}, cache ${JSON.stringify(fromCache.slice(0, 2))}, fresh ${JSON.stringify(fromFresh.slice(0, 2))}`;
  if (computesExactly(engine)) return isDeepStrictEqual(fromCache, fromFresh) ? undefined : `not bit-identical: ${shown()}`;
  const argmaxDiffers = topGap(fromFresh) >= NEAR_TIE && fromCache[0]![0] !== fromFresh[0]![0];
  return tvd > MAX_TVD || argmaxDiffers ? shown() : undefined;
}

/** Tallies of the probe run after every operation. */
export class CacheProbeTally {
  /** Probes the engine answered and the session could compare. */
  compared = 0;
  /** The session saw its state lost (an engine process killed) and re-prefills next: not compared. */
  resyncPending = 0;
  /** The backend could not tell (no probe), or the probe was dropped (a reset cancels queued work, a kill fails it). */
  unanswered = 0;
  readonly mismatches: string[] = [];

  /**
   * Queues a probe behind whatever the chat has queued (it runs in turn, between operations)
   * and records its outcome; never rejects.
   */
  probe(chat: Conversation, label: string): Promise<void> {
    return chat.probeCache().then(
      (check) => {
        if (check.resyncPending) this.resyncPending++;
        else if (!check.probe) this.unanswered++;
        else {
          this.compared++;
          if (check.mismatch) this.mismatches.push(`${label}: ${check.mismatch}`);
        }
      },
      () => {
        this.unanswered++;
      },
    );
  }
}
