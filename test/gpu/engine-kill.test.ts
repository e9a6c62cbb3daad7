// Randomized UI-like operations on a chat whose model runs on Vulkan (llvmpipe) in an engine
// process, with SIGKILLs of that process among them (the pattern of
// model/serialized-random-proxy.test.ts, made short for a slow device): no two calls
// overlap on a state, failed turns are only engine_crashed/cancelled, the next turn
// re-prefills into a restarted process, and at the end ledger == cache (up to a counted near-tie).

import "./llvmpipe";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import { StatefulChatError } from "../../src/extension/core/errors";
import type { ProxyEngine } from "../../src/extension/engine-host/proxy-engine";
import { defaultModelFile } from "../support/default-model";
import { startProxyEngine } from "../support/engine-process";
import { freshDistributionAt, greedyFromFresh, greedyFromState, InstrumentedEngine, topGap } from "../support/instrumented-engine";
import { seededRandom } from "../support/random";
import { assertFullyOffloaded, GPU_CONTEXT } from "./llvmpipe";

const OPERATIONS = 4;
const MESSAGES = ["hi", "Name a color.", "Say yes.", "Thanks"];
const ALLOWED_ERRORS = new Set(["cancelled", "engine_crashed"]);

describe("random operations with an engine SIGKILL, the model on Vulkan (llvmpipe) in an engine process", () => {
  let proxy: ProxyEngine;
  let engine: InstrumentedEngine;
  before(async () => {
    proxy = await startProxyEngine(
      { modelPath: defaultModelFile(), backend: "llamacpp", contextSize: GPU_CONTEXT, gpu: "vulkan", speculative: "off" },
      { guard: { maxCrashes: 100, baseDelayMs: 10, maxDelayMs: 50 } },
    );
    assertFullyOffloaded(proxy);
    engine = new InstrumentedEngine(proxy);
  });
  after(async () => {
    await engine?.dispose();
  });

  it(`${OPERATIONS} operations with kills: no overlap, only expected errors, ledger == cache`, async () => {
    const random = seededRandom(27);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
    const unexpected: unknown[] = [];
    let crashes = 0;
    let completed = 0;
    const settle = (p: Promise<unknown>) =>
      p.then(
        () => completed++,
        (error: unknown) => {
          if (!(error instanceof StatefulChatError) || !ALLOWED_ERRORS.has(error.code)) unexpected.push(error);
          else if (error.code === "engine_crashed") crashes++;
        },
      );
    const chat = await Conversation.create(engine, { turn: { maxTokens: 2, systemPrompt: "" }, prefillChunk: 16 });
    const state = engine.states.at(-1)!;
    const inFlight: Promise<unknown>[] = [];
    let kills = 0;
    // A kill is certain (operation 2); the others are drawn.
    const kinds = ["send", "killWhileStreaming", ...Array.from({ length: OPERATIONS - 2 }, () => pick(["send", "sendWhileStreaming", "stop", "reset"] as const))];
    for (const kind of kinds) {
      switch (kind) {
        case "send":
          await settle(chat.send({ text: pick(MESSAGES) }));
          break;
        case "sendWhileStreaming":
          inFlight.push(settle(chat.send({ text: pick(MESSAGES) })), settle(chat.send({ text: pick(MESSAGES) })));
          break;
        case "stop":
          inFlight.push(settle(chat.send({ text: pick(MESSAGES) })));
          chat.stop();
          break;
        case "reset":
          inFlight.push(settle(chat.send({ text: pick(MESSAGES) })), settle(chat.reset()));
          break;
        case "killWhileStreaming": {
          let killed = false;
          const kill = () => {
            if (killed || proxy.pid === undefined) return;
            killed = true;
            process.kill(proxy.pid, "SIGKILL");
            kills++;
          };
          inFlight.push(settle(chat.send({ text: "Count from one to ten." }, { onText: kill })));
          break;
        }
      }
    }
    await Promise.all(inFlight.splice(0));
    await chat.whenIdle();
    if (state.inner.length !== chat.ledger.length) await settle(chat.send({ text: "ok" }));
    const ledger = [...chat.ledger];
    assert.equal(state.inner.length, ledger.length, "cache length == ledger length");
    if (ledger.length > 0) {
      const fromSession = await greedyFromState(state.inner, ledger, 1);
      const fromFresh = await greedyFromFresh(proxy, ledger, 1);
      if (fromSession[0] !== fromFresh[0]) {
        const top = await freshDistributionAt(proxy, ledger);
        assert.ok(topGap(top) < 0.1, `ledger != cache without a near-tie: ${JSON.stringify(top)}`);
        console.log("a near-tie at the final comparison (counted)");
      }
    }
    await chat.dispose();
    assert.deepEqual(unexpected, []);
    assert.equal(engine.states.reduce((n, s) => n + s.overlaps, 0), 0, "no two engine calls overlapped on one state");
    assert.ok(kills >= 1 && crashes >= 1, `kills: ${kills}, turns failed by a crash: ${crashes}`);
    assert.ok(proxy.crashes >= 1);
    assert.ok(completed >= 1, `operations completed: ${completed}`);
    console.log(`operations: ${kinds.join(", ")}; kills ${kills}, crashed turns ${crashes}, completed ${completed}`);
  });
});
