// A Stop while the engine process restarts (its backoff, then the model loading again) ends
// the turn at once (invariant 6): the state stops waiting for the process, the restart goes on
// for the next call, and Reset needs no process at all. The proxy state is the real one; its
// owner is a test double standing for a ProxyEngine whose restart has not finished.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CancelledError } from "../../src/extension/core/errors";
import { Session } from "../../src/extension/core/session";
import type { EngineProcess } from "../../src/extension/engine-host/engine-process";
import { ProxyKvState, type ProxyStateOwner } from "../../src/extension/engine-host/proxy-state";
import { ByteTokenizer } from "../support/fake-engine";

/** Test double of the engine: its process is restarting until the test ends or fails the restart. */
class RestartingEngine implements ProxyStateOwner {
  asked = 0;
  private fail!: (error: unknown) => void;
  private readonly restart = new Promise<EngineProcess>((_resolve, reject) => (this.fail = reject));
  private askedNow: (() => void) | undefined;

  process(): Promise<EngineProcess> {
    this.asked++;
    this.askedNow?.();
    return this.restart;
  }

  /** Resolves when a state next asks for the process (and waits for the restart). */
  nextAsk(): Promise<void> {
    return new Promise((resolve) => (this.askedNow = resolve));
  }

  failRestart(error: Error): void {
    this.fail(error);
  }

  forget(): void {}
}

const hangGuard = { timeout: 10_000 };

describe("Stop while the engine process restarts", () => {
  for (const replyLoop of [false, true]) {
    const loop = replyLoop ? " (reply loop in the engine process)" : "";

    it(`a prefill waiting for the restart ends as cancelled; the ledger and the state are as before${loop}`, hangGuard, async () => {
      const engine = new RestartingEngine();
      const session = new Session(new ProxyKvState(engine, 4096, undefined, replyLoop), new ByteTokenizer(), 16);
      const stop = new AbortController();
      const asked = engine.nextAsk();
      const prefill = session.prefill(new Array(100).fill(97), stop.signal);
      await asked;
      stop.abort();
      await assert.rejects(prefill, CancelledError);
      assert.equal(session.position, 0);
      assert.equal(session.evaluated, 0);
      await session.reset(); // Reset needs no process: it does not wait for the restart either
      assert.equal(session.position, 0);
    });

    it(`a reply waiting for the restart ends as stopped with nothing generated${loop}`, hangGuard, async () => {
      const engine = new RestartingEngine();
      const session = new Session(new ProxyKvState(engine, 4096, undefined, replyLoop), new ByteTokenizer(), 16);
      await session.prefill([97, 98, 99]); // fits in the last chunk: pending, nothing sent yet
      const stop = new AbortController();
      const asked = engine.nextAsk();
      const tokens: number[] = [];
      const reply = (async () => {
        for await (const token of session.generate({ maxTokens: 10, sampling: { temperature: 0 } }, stop.signal)) tokens.push(token);
      })();
      await asked;
      stop.abort();
      await reply;
      assert.equal(session.lastStopReason, "cancelled");
      assert.deepEqual(tokens, []);
      assert.deepEqual([...session.tokens], [97, 98, 99], "the prompt stays in the ledger, to be prefilled next time");
      assert.equal(session.evaluated, 0);
    });
  }

  it("a restart that fails after the Stop is not left as an unhandled rejection", hangGuard, async () => {
    const engine = new RestartingEngine();
    const state = new ProxyKvState(engine, 4096, undefined, false);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const stop = new AbortController();
      const asked = engine.nextAsk();
      const evaluate = state.evaluate([1, 2, 3], undefined, stop.signal);
      await asked;
      stop.abort();
      await assert.rejects(evaluate, CancelledError);
      engine.failRestart(new Error("load failed"));
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
