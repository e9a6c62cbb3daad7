// Invariant 4 (serialized) under a randomized storm of UI-like operations on the real
// model: sends, sends while streaming, stops, resets and disposes. An instrumented engine
// flags any overlap of two calls on one state. Ledger == cache from llama.cpp's side: after
// every operation its own positions for the sequence (KvState.probeCache, queued in turn
// with the operations) equal the ledger's evaluated tokens, and every 50 operations the
// next-token distribution at the last position equals a fresh prefill's of the ledger.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { LlamaEngine } from "../../src/extension/backends/llamacpp/llama-engine";
import { Conversation } from "../../src/extension/core/conversation";
import { StatefulChatError } from "../../src/extension/core/errors";
import { defaultModelFile } from "../support/default-model";
import { cacheDiffersFromFreshPrefill, CacheProbeTally } from "../support/cache-agreement";
import { InstrumentedEngine, type InstrumentedState } from "../support/instrumented-engine";
import { seededRandom } from "../support/random";
import { testThreads } from "../support/test-threads";

const OPERATIONS = 1000;
const MESSAGES = ["hi", "What is 3 + 4?", "Name a color.", "Write hello world in C.", "Say yes.", "Thanks", "Explain DNS in one line."];
const ALLOWED_ERRORS = new Set(["cancelled", "disposed"]);

describe("serialized session queue under random operations", () => {
  let llama: LlamaEngine;
  let engine: InstrumentedEngine;
  before(async () => {
    llama = await LlamaEngine.load({ modelPath: defaultModelFile(), contextSize: 512, threads: testThreads() });
    engine = new InstrumentedEngine(llama);
  });
  after(async () => {
    await engine?.dispose();
  });

  /** The engine's own count, then the logits at the last position against a fresh prefill (the chat idle). */
  async function assertLedgerEqualsCache(chat: Conversation, state: InstrumentedState): Promise<void> {
    await chat.whenIdle();
    const check = await chat.probeCache();
    assert.ok(check.probe, "llama.cpp answers the probe");
    assert.equal(check.mismatch, undefined);
    assert.equal(check.probe.held, chat.ledger.length, `llama.cpp holds the ledger (${check.probe.source})`);
    const ledger = [...chat.ledger];
    if (ledger.length === 0) return;
    // On the engine itself, not the instrumented one: the fresh state is not one of the chat's.
    assert.equal(await cacheDiffersFromFreshPrefill(state.inner, llama, ledger), undefined, "the cache's next-token distribution is a fresh prefill's");
  }

  for (const seed of [7, 1234]) {
    it(`seed ${seed}: ${OPERATIONS / 2} operations never overlap engine calls and end with ledger == cache`, async () => {
      const random = seededRandom(seed);
      const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
      const unexpected: unknown[] = [];
      const settle = (p: Promise<unknown>) =>
        p.catch((error: unknown) => {
          if (!(error instanceof StatefulChatError) || !ALLOWED_ERRORS.has(error.code)) unexpected.push(error);
        });
      const options = () => ({
        turn: { maxTokens: 1 + Math.floor(random() * 6), overflow: random() < 0.5 ? ("summarize" as const) : ("truncate" as const), margin: 48 },
        prefillChunk: 16,
      });
      let chat = await Conversation.create(engine, options());
      // The chat's own state (the last one made when it was created), not whichever came last.
      let chatState = engine.states.at(-1)!;
      const inFlight: Promise<unknown>[] = [];
      let completedTurns = 0;
      const counts: Record<string, number> = {};
      const probes = new CacheProbeTally();
      let logitChecks = 0;
      for (let op = 0; op < OPERATIONS / 2; op++) {
        const kind = pick(["send", "send", "sendWhileStreaming", "stop", "stopAfterToken", "reset", "dispose"] as const);
        counts[kind] = (counts[kind] ?? 0) + 1;
        switch (kind) {
          case "send":
            await settle(chat.send({ text: pick(MESSAGES) }).then(() => completedTurns++));
            break;
          case "sendWhileStreaming":
            inFlight.push(settle(chat.send({ text: pick(MESSAGES) }).then(() => completedTurns++)));
            inFlight.push(settle(chat.send({ text: pick(MESSAGES) }).then(() => completedTurns++)));
            break;
          case "stop":
            inFlight.push(settle(chat.send({ text: pick(MESSAGES) })));
            chat.stop();
            break;
          case "stopAfterToken": {
            const current = chat;
            inFlight.push(settle(current.send({ text: pick(MESSAGES) }, { onText: () => current.stop() })));
            break;
          }
          case "reset":
            inFlight.push(settle(chat.send({ text: pick(MESSAGES) })));
            inFlight.push(settle(chat.reset()));
            break;
          case "dispose": {
            inFlight.push(settle(chat.send({ text: pick(MESSAGES) })));
            await chat.dispose();
            chat = await Conversation.create(engine, options());
            chatState = engine.states.at(-1)!;
            break;
          }
        }
        // After every operation, in turn with what it queued (not awaited: the next operation may
        // still overlap this one's turns, as in the UI).
        inFlight.push(probes.probe(chat, `op ${op} (${kind})`));
        if (op % 50 === 49) {
          await Promise.all(inFlight.splice(0));
          await assertLedgerEqualsCache(chat, chatState);
          logitChecks++;
        }
      }
      await Promise.all(inFlight.splice(0));
      await assertLedgerEqualsCache(chat, chatState);
      await chat.dispose();
      assert.deepEqual(unexpected, []);
      assert.deepEqual(probes.mismatches, [], "llama.cpp's count == the ledger after every operation");
      // A reset or a dispose cancels a probe still queued behind it: most are compared, none may disagree.
      assert.ok(probes.compared > OPERATIONS / 4, `probes compared: ${probes.compared}, unanswered ${probes.unanswered}`);
      assert.equal(probes.resyncPending, 0, "in process, nothing loses its state");
      console.log(`seed ${seed}: ${probes.compared} probes compared (${probes.unanswered} cancelled by a reset or a dispose), ${logitChecks + 1} logit checks, 0 mismatches`);
      const overlaps = engine.states.reduce((sum, s: InstrumentedState) => sum + s.overlaps, 0);
      assert.equal(overlaps, 0, "no two engine calls overlapped on one state");
      assert.ok(completedTurns > 50, `turns completed: ${completedTurns}`);
      assert.ok(Object.keys(counts).length === 6, `every kind of operation ran: ${JSON.stringify(counts)}`);
    });
  }
});
