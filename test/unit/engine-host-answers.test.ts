// Invariant 8 at the engine process: a request it cannot validate is answered with a typed
// error instead of being dropped (the host would otherwise wait for it forever). Runs the real
// engine host from source over IPC; no model is needed.

import assert from "node:assert/strict";
import { fork } from "node:child_process";
import { it } from "node:test";
import { parseToEngine, parseToHost } from "../../src/extension/engine-host/protocol";
import { ENGINE_HOST_SOURCE } from "../support/engine-process";

it("answers a malformed request that carries an id with an error, and load requests carry the speculative settings", { timeout: 20_000 }, async () => {
  const child = fork(ENGINE_HOST_SOURCE.entry, [], { execArgv: [...ENGINE_HOST_SOURCE.execArgv], stdio: ["ignore", "ignore", "pipe", "ipc"] });
  try {
    const replies: unknown[] = [];
    const got = new Promise<void>((resolve) =>
      child.on("message", (message) => {
        if (typeof message === "object" && message !== null && "heartbeat" in message) return; // a sign of life, not an answer
        replies.push(message);
        if (replies.length === 3) resolve();
      }),
    );
    child.send({ id: 7, request: { op: "evaluate", state: 1, tokens: [1, -2] } });
    child.send({ id: 8, request: { op: "load", load: { modelPath: "/m.gguf", backend: "auto", speculative: "sometimes" } } });
    child.send({ id: 9, request: { op: "nonsense" } });
    await got;
    const parsed = replies.map(parseToHost);
    assert.deepEqual(parsed.map((r) => r && "ok" in r && r.ok === false && r.id), [7, 8, 9]);
    for (const reply of parsed) assert.ok(reply && "error" in reply && reply.error.code === "engine_failed" && /invalid/.test(reply.error.message));
  } finally {
    child.kill("SIGKILL");
  }
  assert.ok(parseToEngine({ id: 1, request: { op: "load", load: { modelPath: "/m.gguf", backend: "auto", speculative: "lookup", draftModelPath: "/d.gguf" } } }));
  assert.equal(parseToEngine({ id: 1, request: { op: "load", load: { modelPath: "/m.gguf", backend: "auto", draftModelPath: 3 } } }), undefined);
});
