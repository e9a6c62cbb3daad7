// The host's wait for a sandbox answer (template-sandbox.ts) must not miss a wake-up: an answer
// that lands between the host's look at the port and its sleep must end the sleep at once, not
// leave the host blocked until the time limit (3 s of a frozen extension host, then the answer
// is taken anyway). The window is a few instructions wide in real use; here the port look is
// slowed down so the worker always answers inside it.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, describe, it } from "node:test";
import { DEFAULT_SANDBOX_LIMITS } from "../../src/extension/core/template-sandbox/sandbox-limits";
import { TemplateSandbox } from "../../src/extension/core/template-sandbox/template-sandbox";
import { CHATML } from "../support/fixture-templates";
import { templateWorkerFromSource } from "../support/template-worker-build";

const workerThreads = createRequire(__filename)("node:worker_threads") as typeof import("node:worker_threads");
const LIMITS = { ...DEFAULT_SANDBOX_LIMITS, timeMs: 2_000 };
const sandbox = new TemplateSandbox(LIMITS, templateWorkerFromSource());
after(() => sandbox.dispose());

const originalWait = Atomics.wait;

function sleepSync(ms: number): void {
  originalWait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe("template sandbox: the host's wait", () => {
  it("an answer that arrives just after the host found the port empty wakes it at once", () => {
    sandbox.parse(CHATML); // the worker is up: only the render is timed
    const original = workerThreads.receiveMessageOnPort;
    let slowed = false;
    workerThreads.receiveMessageOnPort = ((port: Parameters<typeof original>[0]) => {
      const received = original(port);
      if (received === undefined && !slowed) {
        slowed = true;
        sleepSync(300); // the worker answers (and signals) now, before the host sleeps
      }
      return received;
    }) as typeof original;
    // How each of the host's sleeps ended: a sleep that outlasts an answer already signalled
    // ends "timed-out" (the whole time limit), one that sees it ends "not-equal" or "ok".
    const sleeps: string[] = [];
    Atomics.wait = ((...args: Parameters<typeof originalWait>) => {
      const outcome = originalWait(...args);
      sleeps.push(outcome);
      return outcome;
    }) as typeof originalWait;
    try {
      const text = sandbox.render(CHATML, { messages: [{ role: "user", content: "Hi" }], add_generation_prompt: true });
      assert.equal(text, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
      assert.ok(slowed, "the port was found empty once");
      assert.ok(sleeps.length > 0 && !sleeps.includes("timed-out"), `the host's sleeps ended: ${sleeps.join(", ")}`);
    } finally {
      workerThreads.receiveMessageOnPort = original;
      Atomics.wait = originalWait;
    }
  });
});
