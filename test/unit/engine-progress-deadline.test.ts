// Invariant 8 when a native call never returns (a GPU driver hang): the engine process's event
// loop still runs and sends heartbeats, so the stall watchdog is content, but the model makes
// no progress. With no progress (a reply, a token) for a call's deadline, the process is
// killed and the call fails as a crash, like after any crash (the next call restarts it). The
// child is a real process that heartbeats and never finishes the model's work.

import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { EngineCrashedError } from "../../src/extension/core/errors";
import { Session } from "../../src/extension/core/session";
import { EngineProcess } from "../../src/extension/engine-host/engine-process";
import { callDeadline, DEFAULT_LONG_CALL_MS, DEFAULT_STEP_MS, STEP_TOKENS, type EngineTraits } from "../../src/extension/engine-host/progress-deadline";
import type { Request } from "../../src/extension/engine-host/protocol";
import { ProxyKvState, type ProxyStateOwner } from "../../src/extension/engine-host/proxy-state";
import { ByteTokenizer } from "../support/fake-engine";
import { ManualClock } from "../support/manual-clock";


const HUNG = join(__dirname, "..", "support", "hung-native-engine-host.ts");
const STEP = 10_000;
const GREEDY = { temperature: 0 } as const;
const hangGuard = { timeout: 30_000 };

function start(watchdog: NonNullable<Parameters<typeof EngineProcess.start>[0]>["watchdog"], tokensBeforeHang = 2, answers = false): EngineProcess {
  const args = [String(tokensBeforeHang), ...(answers ? ["answers"] : [])];
  return EngineProcess.start({ entry: HUNG, execArgv: ["--import", "tsx"], args, watchdog });
}

/** Test double of a ProxyEngine: a new process when the last one is gone, the first one hung, the next ones healthy. */
class RestartingEngine implements ProxyStateOwner {
  readonly started: EngineProcess[] = [];
  process(): Promise<EngineProcess> {
    const current = this.started.at(-1);
    if (current?.alive) return Promise.resolve(current);
    const next = start({ progress: { stepMs: 300 } }, 2, this.started.length > 0);
    this.started.push(next);
    return Promise.resolve(next);
  }
  forget(): void {}
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 600 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(check(), `waited for ${what}`);
}

/** The outcome of a call once it settles ("waiting" until then). */
function outcomeOf(call: Promise<unknown>): { value: unknown } {
  const outcome: { value: unknown } = { value: "waiting" };
  call.then(
    () => (outcome.value = "answered"),
    (error: unknown) => (outcome.value = error),
  );
  return outcome;
}

async function assertEndedAsStuck(engine: EngineProcess, call: Promise<unknown>): Promise<void> {
  const failure = await call.then(
    () => assert.fail("the call was answered"),
    (error: unknown) => error,
  );
  assert.ok(failure instanceof EngineCrashedError, `failed as a crash: ${String(failure)}`);
  assert.equal(failure.restarting, true, "the next call restarts the engine process");
  assert.match(failure.message, /made no progress/);
  await engine.whenExited();
  assert.equal(engine.alive, false, "the hung process was killed");
  assert.equal(engine.killedAsStuck, true);
}

async function loaded(engine: EngineProcess, draftModelPath?: string): Promise<number> {
  await engine.request({ op: "load", load: { modelPath: "test.gguf", backend: "llamacpp", draftModelPath } });
  return (await engine.request({ op: "createState" })).state;
}

describe("the progress deadline of an engine process that heartbeats", () => {
  it("a decode whose native call never returns ends as a crash, and the process is killed", hangGuard, async () => {
    // The real clock, a short step and the default stall time: only the progress deadline can end it.
    const engine = start({ progress: { stepMs: 300 } });
    const state = await loaded(engine);
    await assertEndedAsStuck(engine, engine.request({ op: "evaluate", state, tokens: [7], sample: GREEDY }));
  });

  it("the chat recovers as after any crash: the prefill fails and is rolled back, the next one runs in a new process", hangGuard, async () => {
    const engine = new RestartingEngine();
    const session = new Session(new ProxyKvState(engine, 4096, undefined, false), new ByteTokenizer(), 16);
    const prompt = new Array(40).fill(97);
    await assert.rejects(session.prefill(prompt), (error: unknown) => error instanceof EngineCrashedError && /made no progress/.test(error.message));
    await engine.started[0].whenExited();
    assert.equal(engine.started[0].killedAsStuck, true);
    assert.equal(session.position, 0, "the failed prefill is rolled back");
    await session.prefill(prompt);
    assert.equal(engine.started.length, 2, "the next call started a new process");
    assert.equal(session.position, 40);
    assert.equal(session.evaluated, 32, "two chunks computed, the last one left for the reply");
    await engine.started[1].stop(1_000);
  });

  it("a prefill chunk gets a step per 512 tokens it carries", hangGuard, async () => {
    const clock = new ManualClock();
    const engine = start({ clock, progress: { stepMs: STEP } });
    const state = await loaded(engine);
    const call = engine.request({ op: "evaluate", state, tokens: new Array(2 * STEP_TOKENS).fill(7) });
    const outcome = outcomeOf(call);
    clock.advance(2 * STEP - 1);
    assert.equal(engine.killedAsStuck, false, "not killed within two steps");
    assert.equal(outcome.value, "waiting");
    clock.advance(2);
    await assertEndedAsStuck(engine, call);
  });

  it("a reply that streamed tokens gets one step from its last token, not its prompt's steps", hangGuard, async () => {
    const clock = new ManualClock();
    const engine = start({ clock, progress: { stepMs: STEP } });
    const state = await loaded(engine);
    const tokens: number[] = [];
    const run = engine.generateReply({ op: "generateReply", state, tokens: new Array(2 * STEP_TOKENS).fill(7), sample: GREEDY, maxTokens: 50 }, (t) => tokens.push(t));
    await until("the tokens before the hang", () => tokens.length === 2);
    clock.advance(STEP / 2);
    assert.equal(engine.killedAsStuck, false);
    clock.advance(STEP / 2 + 1);
    await assertEndedAsStuck(engine, run.done);
  });

  it("a reply of a draft-model engine may also prefill its whole context once between tokens", hangGuard, async () => {
    const clock = new ManualClock();
    const engine = start({ clock, progress: { stepMs: STEP } });
    const state = await loaded(engine, "draft.gguf");
    const tokens: number[] = [];
    const run = engine.generateReply({ op: "generateReply", state, tokens: [7], sample: GREEDY, maxTokens: 50 }, (t) => tokens.push(t), { held: 3 * STEP_TOKENS });
    await until("the tokens before the hang", () => tokens.length === 2);
    // A step for the next token, and 4 steps for the draft model's prefill of 3 * 512 + 1 tokens.
    clock.advance(5 * STEP - 1);
    assert.equal(engine.killedAsStuck, false, "the draft model may still be catching up");
    clock.advance(2);
    await assertEndedAsStuck(engine, run.done);
  });

  it("a model load is exempt: it may take as long as it takes while the process heartbeats", hangGuard, async () => {
    const clock = new ManualClock();
    const engine = start({ clock, stallMs: 3 * STEP, progress: { stepMs: STEP } });
    const outcome = outcomeOf(engine.request({ op: "load", load: { modelPath: "hang", backend: "llamacpp" } }));
    for (let i = 0; i < 20; i++) {
      clock.advance(STEP);
      const now = clock.now();
      await until("a heartbeat after the clock moved", () => engine.lastSignOfLife === now);
    }
    assert.equal(engine.killedAsStuck, false, "20 steps and still loading");
    assert.equal(engine.killedAsStalled, false);
    assert.equal(engine.alive, true);
    assert.equal(outcome.value, "waiting");
    await engine.stop(1_000);
  });

  it("a snapshot load gets the long-call deadline, not a step", hangGuard, async () => {
    const clock = new ManualClock();
    const engine = start({ clock, progress: { stepMs: STEP, longCallMs: 6 * STEP } });
    const state = await loaded(engine);
    const call = engine.request({ op: "loadSnapshot", state, path: "/nowhere.kv" });
    outcomeOf(call);
    clock.advance(6 * STEP - 1);
    assert.equal(engine.killedAsStuck, false);
    clock.advance(2);
    await assertEndedAsStuck(engine, call);
  });
});

describe("callDeadline", () => {
  const plain: EngineTraits = { draftModel: false, remote: false };
  const reply = (tokens: number): Request => ({ op: "generateReply", state: 1, tokens: new Array(tokens).fill(7), sample: GREEDY, maxTokens: 10 });

  it("gives each operation its allowance, and none to a load or a remote engine", () => {
    const limits = {};
    const of = (request: Request, engine = plain) => callDeadline(request, limits, engine, 0).allowanceMs;
    assert.equal(of({ op: "load", load: { modelPath: "m", backend: "llamacpp" } }), undefined);
    assert.equal(of({ op: "evaluate", state: 1, tokens: [1] }, { draftModel: false, remote: true }), undefined);
    assert.equal(of({ op: "createState" }), DEFAULT_LONG_CALL_MS);
    assert.equal(of({ op: "reset", state: 1 }), DEFAULT_STEP_MS);
    assert.equal(of({ op: "truncate", state: 1, length: 0 }), DEFAULT_STEP_MS);
    assert.equal(of({ op: "evaluate", state: 1, tokens: [1] }), DEFAULT_STEP_MS);
    assert.equal(of({ op: "evaluateTopK", state: 1, tokens: new Array(STEP_TOKENS + 1).fill(1), k: 4 }), 2 * DEFAULT_STEP_MS);
    assert.equal(of({ op: "loadSnapshot", state: 1, path: "p" }), DEFAULT_LONG_CALL_MS);
    assert.equal(of({ op: "saveSnapshot", state: 1, path: "p", tokens: [1] }), DEFAULT_LONG_CALL_MS);
    assert.equal(of({ op: "saveSnapshot", state: 1, path: "p", tokens: new Array(10 * STEP_TOKENS).fill(1) }), 10 * DEFAULT_STEP_MS);
  });

  it("a reply: its prompt's steps before the first token, a step after each", () => {
    const deadline = callDeadline(reply(3 * STEP_TOKENS), { stepMs: 100 }, plain, 0, 5_000);
    assert.equal(deadline.allowanceMs, 300);
    deadline.progressed(250);
    assert.equal(deadline.allowanceMs, 100);
  });

  it("a draft-model reply's catch-up time is spent by the first gap longer than its step", () => {
    const deadline = callDeadline(reply(1), { stepMs: 100 }, { draftModel: true, remote: false }, 0, 2 * STEP_TOKENS);
    assert.equal(deadline.allowanceMs, 100 + 300, "a step, and the prefill of 2 * 512 + 1 tokens");
    deadline.progressed(50); // the first token, in time: nothing spent
    assert.equal(deadline.allowanceMs, 400);
    deadline.progressed(300); // a gap of 250 ms: the catch-up happened
    assert.equal(deadline.allowanceMs, 100);
    deadline.progressed(350);
    assert.equal(deadline.allowanceMs, 100);
  });
});
