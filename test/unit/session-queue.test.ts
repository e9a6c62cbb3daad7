import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CancelledError, DisposedError } from "../../src/extension/core/errors";
import { SessionQueue } from "../../src/extension/core/session-queue";

const tick = () => new Promise((r) => setImmediate(r));

describe("SessionQueue", () => {
  it("runs operations one at a time in FIFO order", async () => {
    const queue = new SessionQueue();
    const log: string[] = [];
    let active = 0;
    let maxActive = 0;
    const op = (name: string) =>
      queue.enqueue("send", async () => {
        active++;
        maxActive = Math.max(maxActive, active);
        log.push(`start ${name}`);
        await tick();
        await tick();
        log.push(`end ${name}`);
        active--;
        return name;
      });
    const results = await Promise.all([op("a"), op("b"), op("c")]);
    assert.deepEqual(results, ["a", "b", "c"]);
    assert.equal(maxActive, 1);
    assert.deepEqual(log, ["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("abortRunning aborts only the running operation; queued ones still run", async () => {
    const queue = new SessionQueue();
    let sawAbort = false;
    const first = queue.enqueue("send", async (signal) => {
      while (!signal.aborted) await tick();
      sawAbort = true;
      return "first";
    });
    const second = queue.enqueue("send", async (signal) => (signal.aborted ? "aborted" : "second"));
    await tick();
    assert.equal(queue.abortRunning(), true);
    assert.deepEqual(await Promise.all([first, second]), ["first", "second"]);
    assert.ok(sawAbort);
  });

  it("dispose aborts the running operation, rejects queued ones and refuses new ones", async () => {
    const queue = new SessionQueue();
    const running = queue.enqueue("send", async (signal) => {
      while (!signal.aborted) await tick();
      return "done";
    });
    const queued = assert.rejects(queue.enqueue("send", async () => "never"), DisposedError);
    await tick();
    await queue.dispose();
    assert.equal(await running, "done");
    await queued;
    await assert.rejects(queue.enqueue("send", async () => 1), DisposedError);
  });

  it("cancelWaiting rejects queued operations with CancelledError and leaves the running one", async () => {
    const queue = new SessionQueue();
    const running = queue.enqueue("send", async () => {
      await tick();
      return "ran";
    });
    const queued = assert.rejects(queue.enqueue("send", async () => "never"), CancelledError);
    assert.equal(queue.cancelWaiting(), 1);
    assert.equal(await running, "ran");
    await queued;
  });

  it("a failing operation does not block the next", async () => {
    const queue = new SessionQueue();
    const failing = queue.enqueue("send", async () => {
      throw new Error("boom");
    });
    const next = queue.enqueue("send", async () => "ok");
    await assert.rejects(failing, /boom/);
    assert.equal(await next, "ok");
  });
});
