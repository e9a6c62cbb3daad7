// The engine host IPC protocol: arbitrary input never throws; only well-formed requests and
// replies get through, and reply values are checked per operation.
import assert from "node:assert/strict";
import { it } from "node:test";
import { parseToEngine, parseToHost, replyChecks } from "../../src/extension/engine-host/protocol";
import { errorFromWire } from "../../src/extension/engine-host/engine-process";
import { CapacityError, ConcurrentAccessError } from "../../src/extension/core/errors";
import { seededRandom } from "../support/random";

function randomValue(random: () => number, depth = 0): unknown {
  const r = random();
  if (depth > 2 || r < 0.25) return [null, undefined, 0, -1, 1.5, NaN, true, "", "evaluate", [1, 2]][Math.floor(random() * 10)];
  if (r < 0.6) {
    const obj: Record<string, unknown> = {};
    const keys = ["id", "op", "request", "state", "tokens", "sample", "ok", "value", "error", "length", "k", "load", "token", "cancel", "maxTokens"];
    for (let i = 0; i < 5; i++) obj[keys[Math.floor(random() * keys.length)]] = randomValue(random, depth + 1);
    if (random() < 0.5) obj.op = ["load", "createState", "evaluate", "truncate", "reset", "disposeState", "generateReply", "eval"][Math.floor(random() * 8)];
    return obj;
  }
  return Array.from({ length: 3 }, () => randomValue(random, depth + 1));
}

it("accepts well-formed requests", () => {
  assert.deepEqual(parseToEngine({ id: 1, request: { op: "evaluate", state: 2, tokens: [1, 2, 3], sample: { temperature: 0 } } }), {
    id: 1,
    request: { op: "evaluate", state: 2, tokens: [1, 2, 3], sample: { temperature: 0 } },
  });
  assert.ok(parseToEngine({ id: 2, request: { op: "load", load: { modelPath: "/m.gguf", backend: "auto", threads: 1 } } }));
  assert.ok(parseToEngine({ id: 3, request: { op: "truncate", state: 1, length: 0 } }));
  assert.ok(parseToEngine({ id: 4, request: { op: "saveSnapshot", state: 1, path: "/s/a.kv.tmp", tokens: [1, 2] } }));
  assert.ok(parseToEngine({ id: 5, request: { op: "loadSnapshot", state: 1, path: "/s/a.kv" } }));
  assert.ok(parseToEngine({ id: 6, request: { op: "generateReply", state: 1, tokens: [1], sample: { temperature: 0 }, maxTokens: 8 } }));
  assert.deepEqual(parseToEngine({ cancel: 6 }), { cancel: 6 });
});

it("passes generateReply's token events and tells them from replies", () => {
  assert.deepEqual(parseToHost({ id: 6, token: 42 }), { id: 6, token: 42 });
  assert.deepEqual(parseToHost({ heartbeat: 3 }), { heartbeat: 3 });
  assert.equal(parseToHost({ heartbeat: "3" }), undefined);
  assert.equal(parseToHost({ id: 6, token: -1 }), undefined);
  assert.equal(parseToHost({ id: 6, token: 1.5 }), undefined);
  assert.deepEqual(parseToHost({ id: 6, ok: true, value: { length: 3 } }), { id: 6, ok: true, value: { length: 3 } });
  assert.ok(replyChecks.generateReply({ length: 3 }));
  assert.ok(!replyChecks.generateReply({}));
  const loaded = { backend: "llamacpp", modelPath: "m", modelName: "m", capacity: 512, details: "", chatTemplate: "t" };
  assert.ok(replyChecks.load({ ...loaded, replyLoop: true }));
  assert.ok(!replyChecks.load({ ...loaded, replyLoop: "yes" }));
});

it("refuses malformed requests", () => {
  for (const bad of [
    null,
    { id: -1, request: { op: "reset", state: 1 } },
    { id: 1, request: { op: "evaluate", state: 1, tokens: [1.5] } },
    { id: 1, request: { op: "evaluate", state: 1, tokens: [1], sample: { temperature: -1 } } },
    { id: 1, request: { op: "load", load: { modelPath: "/m", backend: "cuda" } } },
    { id: 1, request: { op: "eval", code: "process.exit()" } },
    { id: 1, request: { op: "truncate", state: 1 } },
    { id: 1, request: { op: "saveSnapshot", state: 1, path: "/s/a.kv" } },
    { id: 1, request: { op: "loadSnapshot", state: 1, path: "" } },
    { id: 1, request: { op: "generateReply", state: 1, tokens: [], sample: { temperature: 0 }, maxTokens: 8 } },
    { id: 1, request: { op: "generateReply", state: 1, tokens: [1], sample: { temperature: 0 }, maxTokens: 0 } },
    { id: 1, request: { op: "generateReply", state: 1, tokens: [1], maxTokens: 4 } },
    { cancel: -1 },
    { cancel: 1, id: 2 },
  ]) {
    assert.equal(parseToEngine(bad), undefined, JSON.stringify(bad));
  }
});

it("checks reply values per operation", () => {
  assert.ok(replyChecks.evaluate({ length: 3, next: 7 }));
  assert.ok(replyChecks.evaluate({ length: 3 }));
  assert.ok(!replyChecks.evaluate({ length: "3" }));
  assert.ok(!replyChecks.createState({ state: 1 }));
  assert.ok(replyChecks.evaluateTopK({ length: 1, top: [[1, 0.5]] }));
  assert.ok(!replyChecks.evaluateTopK({ length: 1, top: [[1]] }));
  assert.ok(!replyChecks.load({ backend: "llamacpp", modelPath: "m", modelName: "m", capacity: 512, details: "" }), "no chat template");
});

it("rebuilds typed errors from the wire", () => {
  const capacity = errorFromWire({ code: "capacity_exceeded", message: "x", capacity: { position: 1, requested: 2, capacity: 2 } });
  assert.ok(capacity instanceof CapacityError);
  assert.equal((capacity as CapacityError).requested, 2);
  assert.ok(errorFromWire({ code: "concurrent_access", message: "x" }) instanceof ConcurrentAccessError);
  assert.equal(errorFromWire({ code: "model_invalid", message: "bad file" }).code, "model_invalid");
});

it("random input never throws and never yields a malformed message", () => {
  const random = seededRandom(42);
  for (let i = 0; i < 20_000; i++) {
    const value = randomValue(random);
    const request = parseToEngine(value);
    if (request) assert.ok("cancel" in request ? Number.isInteger(request.cancel) : Number.isInteger(request.id) && typeof request.request.op === "string");
    const reply = parseToHost(value);
    if (reply) assert.ok("heartbeat" in reply ? Number.isInteger(reply.heartbeat) : "token" in reply ? Number.isInteger(reply.token) : reply.ok ? "value" in reply : typeof reply.error.message === "string");
  }
});
