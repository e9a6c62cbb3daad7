// Invariant 8 when the engine process stops answering: with a request waiting and no message
// from the process for the stall time, it is killed and every waiting request fails as a
// crash (so the next turn restarts it), while a process that keeps sending heartbeats is never
// killed however long a request takes. The clock is injected and advanced by hand; the
// watchdog decides inside advance() (its tick), so "not killed yet" is read right after it,
// with no real wait for something not to happen.

import assert from "node:assert/strict";
import { join } from "node:path";
import { it } from "node:test";
import { EngineCrashedError } from "../../src/extension/core/errors";
import { EngineProcess } from "../../src/extension/engine-host/engine-process";
import { ManualClock } from "../support/manual-clock";


const SILENT = join(__dirname, "..", "support", "silent-engine-host.ts");
const STALL_MS = 60_000;

function start(clock: ManualClock, mode: "silent" | "heartbeats"): EngineProcess {
  return EngineProcess.start({ entry: SILENT, execArgv: ["--import", "tsx"], args: [mode], watchdog: { clock, stallMs: STALL_MS } });
}

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 600 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(check(), `waited for ${what}`);
}

it("a request to a process that stopped answering fails as a crash once the stall time passes", { timeout: 30_000 }, async () => {
  const clock = new ManualClock();
  const process = start(clock, "silent");
  let outcome: unknown;
  const request = process.request({ op: "createState" }).then(
    () => (outcome = "answered"),
    (error: unknown) => (outcome = error),
  );
  clock.advance(STALL_MS - 1);
  assert.equal(process.killedAsStalled, false, "not killed within the stall time");
  assert.equal(outcome, undefined, "still waiting within the stall time");
  assert.equal(process.alive, true);
  clock.advance(2);
  assert.equal(process.killedAsStalled, true, "killed as soon as the stall time passed");
  await request;
  const failure = outcome as unknown;
  assert.ok(failure instanceof EngineCrashedError, `failed as a crash: ${String(failure)}`);
  assert.match(failure.message, /stopped answering \(no reply and no sign of life for 60 s\)/);
  assert.equal(process.alive, false, "the hung process was killed");
});

it("a process that sends heartbeats is never killed, however long its request takes", { timeout: 30_000 }, async () => {
  const clock = new ManualClock();
  const process = start(clock, "heartbeats");
  let outcome: unknown;
  // A model load: the one call with no progress deadline (engine-progress-deadline.test.ts
  // covers the calls that have one, whose native work stops while the heartbeats go on).
  void process.request({ op: "load", load: { modelPath: "model.gguf", backend: "llamacpp" } }).then(
    () => (outcome = "answered"),
    (error: unknown) => (outcome = error),
  );
  for (let minute = 0; minute < 5; minute++) {
    clock.advance(STALL_MS / 2);
    assert.equal(process.killedAsStalled, false, `not killed after ${minute + 1} half stall times`);
    const now = clock.now();
    await until("a heartbeat after the clock moved", () => process.lastSignOfLife === now);
  }
  clock.advance(1);
  assert.equal(process.killedAsStalled, false);
  assert.equal(outcome, undefined, "still waiting after 2.5 stall times, not failed");
  assert.equal(process.alive, true);
  await process.stop(1_000);
});

it("an idle process (nothing waiting) is left alone", { timeout: 30_000 }, async () => {
  const clock = new ManualClock();
  const process = start(clock, "silent");
  clock.advance(10 * STALL_MS);
  assert.equal(process.killedAsStalled, false);
  assert.equal(process.alive, true);
  await process.stop(1_000);
});
