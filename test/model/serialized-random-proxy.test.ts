// Invariant 4 and ledger == cache through the engine process, with SIGKILLs of that process
// among the random UI-like operations: sends, sends while streaming, stops, resets,
// disposes and kills. No two calls overlap on a state; failed turns are engine_crashed (or
// cancelled/disposed). Ledger == cache from llama.cpp's side, through the engine process's
// probe message: after every operation its positions for the sequence equal the ledger's
// evaluated tokens (or the session already sees the state lost to a kill and re-prefills),
// and every 30 operations and at the end the next-token distribution at the last position
// equals a fresh prefill's of the ledger.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import { StatefulChatError } from "../../src/extension/core/errors";
import type { ProxyEngine } from "../../src/extension/engine-host/proxy-engine";
import { defaultModelFile } from "../support/default-model";
import { startProxyEngine } from "../support/engine-process";
import { cacheDiffersFromFreshPrefill, CacheProbeTally } from "../support/cache-agreement";
import { InstrumentedEngine, type InstrumentedState } from "../support/instrumented-engine";
import { seededRandom } from "../support/random";
import { testThreads } from "../support/test-threads";

const OPERATIONS = 240;
const MESSAGES = ["hi", "What is 3 + 4?", "Name a color.", "Write hello world in C.", "Say yes.", "Thanks"];
const ALLOWED_ERRORS = new Set(["cancelled", "disposed", "engine_crashed"]);

describe("serialized session queue through the engine process, with kills", () => {
  let proxy: ProxyEngine;
  let engine: InstrumentedEngine;
  before(async () => {
    // Kills here are deliberate and many: the crash-loop guard must not stop the test.
    proxy = await startProxyEngine(
      { modelPath: defaultModelFile(), backend: "llamacpp", contextSize: 512, threads: testThreads() },
      { guard: { maxCrashes: 1_000, baseDelayMs: 10, maxDelayMs: 50 } },
    );
    engine = new InstrumentedEngine(proxy);
  });
  after(async () => {
    await engine?.dispose();
  });

  /** After a kill the cache is empty until the next turn re-prefills it: run one, then compare. */
  async function assertLedgerEqualsCache(chat: Conversation, state: InstrumentedState): Promise<void> {
    await chat.whenIdle();
    if ((await chat.probeCache()).resyncPending) await chat.send({ text: "ok" });
    const check = await chat.probeCache();
    assert.ok(check.probe, "llama.cpp in the engine process answers the probe");
    assert.equal(check.resyncPending, false);
    assert.equal(check.mismatch, undefined);
    assert.equal(check.probe.held, chat.ledger.length, `llama.cpp holds the ledger (${check.probe.source})`);
    const ledger = [...chat.ledger];
    if (ledger.length === 0) return;
    // On the engine itself, not the instrumented one: the fresh state is not one of the chat's.
    assert.equal(await cacheDiffersFromFreshPrefill(state.inner, proxy, ledger), undefined, "the cache's next-token distribution is a fresh prefill's");
  }

  it(`${OPERATIONS} random operations with kills: no overlap, only expected errors, ledger == cache`, async () => {
    const random = seededRandom(99);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
    const unexpected: unknown[] = [];
    const crashes: string[] = [];
    const settle = (p: Promise<unknown>) =>
      p.catch((error: unknown) => {
        if (!(error instanceof StatefulChatError) || !ALLOWED_ERRORS.has(error.code)) unexpected.push(error);
        else if (error.code === "engine_crashed") crashes.push(error.message);
      });
    const options = () => ({ turn: { maxTokens: 1 + Math.floor(random() * 6), margin: 48 }, prefillChunk: 16 });
    let chat = await Conversation.create(engine, options());
    // The chat's own state (the last one made when it was created), not whichever came last.
    let chatState = engine.states.at(-1)!;
    const inFlight: Promise<unknown>[] = [];
    let completedTurns = 0;
    let kills = 0;
    const counts: Record<string, number> = {};
    const probes = new CacheProbeTally();
    const kill = () => {
      const pid = proxy.pid;
      if (pid === undefined) return;
      process.kill(pid, "SIGKILL");
      kills++;
    };
    /** Until the engine has seen the exit (a checkpoint must not race it). */
    const exited = async (pid: number | undefined) => {
      while (pid !== undefined && proxy.pid === pid) await new Promise((r) => setTimeout(r, 5));
    };
    for (let op = 0; op < OPERATIONS; op++) {
      const kind = pick(["send", "send", "sendWhileStreaming", "stop", "reset", "dispose", "kill", "killWhileStreaming"] as const);
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
        case "reset":
          inFlight.push(settle(chat.send({ text: pick(MESSAGES) })));
          inFlight.push(settle(chat.reset()));
          break;
        case "dispose":
          inFlight.push(settle(chat.send({ text: pick(MESSAGES) })));
          await chat.dispose();
          chat = await Conversation.create(engine, options());
          chatState = engine.states.at(-1)!;
          break;
        case "kill": {
          const pid = proxy.pid;
          kill();
          await exited(pid);
          break;
        }
        case "killWhileStreaming": {
          let killed = false;
          inFlight.push(settle(chat.send({ text: pick(MESSAGES) }, { onText: () => (killed ? undefined : ((killed = true), kill())) })));
          break;
        }
      }
      // After every operation, in turn with what it queued (not awaited, as in the UI).
      inFlight.push(probes.probe(chat, `op ${op} (${kind})`));
      if (op % 30 === 29) {
        await Promise.all(inFlight.splice(0));
        await assertLedgerEqualsCache(chat, chatState);
      }
    }
    await Promise.all(inFlight.splice(0));
    await assertLedgerEqualsCache(chat, chatState);
    await chat.dispose();
    assert.deepEqual(unexpected, []);
    assert.deepEqual(probes.mismatches, [], "llama.cpp's count == the ledger after every operation");
    assert.ok(probes.compared > OPERATIONS / 4, `probes compared: ${probes.compared}, resync pending ${probes.resyncPending}, unanswered ${probes.unanswered}`);
    console.log(`${probes.compared} probes compared, ${probes.resyncPending} after a kill (resync pending), ${probes.unanswered} unanswered, ${Math.floor(OPERATIONS / 30) + 1} logit checks, 0 mismatches`);
    const overlaps = engine.states.reduce((sum, s: InstrumentedState) => sum + s.overlaps, 0);
    assert.equal(overlaps, 0, "no two engine calls overlapped on one state");
    assert.ok(kills > 5 && crashes.length > 0, `kills: ${kills}, turns failed by a crash: ${crashes.length}`);
    assert.ok(completedTurns > 30, `turns completed: ${completedTurns}`);
  });
});
