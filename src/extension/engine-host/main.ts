// Entry of the engine host process (bundled as out/engine-host.js): loads one model with
// the ordinary backend picker and serves its KV states over IPC. A native fault here ends
// this process only; the extension host sees the exit and recovers.

import { loadEngine } from "../backends/load-engine";
import type { Engine, KvState, ReplyRun } from "../core/engine";
import { CapacityError, EngineFailedError, toStatefulChatError } from "../core/errors";
import { HEARTBEAT_INTERVAL_MS, parseToEngine, requestIdOf, type LoadedInfo, type Request, type ToHost, type WireError } from "./protocol";

let engine: Engine | undefined;
const states = new Map<number, KvState>();
/** Running generateReply requests by request id, so a cancel message can reach them. */
const replies = new Map<number, ReplyRun>();
let nextStateId = 1;

function send(message: ToHost): void {
  if (process.connected) process.send?.(message);
}

// A sign of life while requests run (the host's watchdog tells "busy" from "hung" by it).
let beats = 0;
setInterval(() => send({ heartbeat: ++beats }), HEARTBEAT_INTERVAL_MS).unref();

function wireError(error: unknown): WireError {
  const typed = toStatefulChatError(error);
  const capacity = typed instanceof CapacityError ? { position: typed.position, requested: typed.requested, capacity: typed.capacity } : undefined;
  return { code: typed.code, message: typed.message, capacity };
}

function stateOf(id: number): KvState {
  const state = states.get(id);
  if (!state) throw new EngineFailedError(`engine process: no state ${id}`);
  return state;
}

function loadedEngine(): Engine {
  if (!engine) throw new EngineFailedError("engine process: no model loaded");
  return engine;
}

async function handle(id: number, request: Request): Promise<unknown> {
  switch (request.op) {
    case "load": {
      if (engine) throw new EngineFailedError("engine process: a model is already loaded");
      const loaded = await loadEngine(request.load);
      engine = loaded.engine;
      const info: LoadedInfo = { ...engine.info, chatTemplate: engine.chatTemplate, notice: loaded.notice, replyLoop: engine.replyLoop === true };
      return info;
    }
    case "createState": {
      const state = await loadedEngine().createState();
      const stateId = nextStateId++;
      states.set(stateId, state);
      return { state: stateId, capacity: state.capacity };
    }
    case "evaluate": {
      const state = stateOf(request.state);
      const next = await state.evaluate(request.tokens, request.sample);
      return { length: state.length, next };
    }
    case "evaluateTopK": {
      const state = stateOf(request.state);
      if (!state.evaluateTopK) throw new EngineFailedError("this backend has no evaluateTopK");
      const top = await state.evaluateTopK(request.tokens, request.k);
      return { length: state.length, top };
    }
    case "truncate": {
      const state = stateOf(request.state);
      await state.truncate(request.length);
      return { length: state.length };
    }
    case "reset": {
      const state = stateOf(request.state);
      await state.reset();
      return { length: state.length };
    }
    case "saveSnapshot": {
      const state = stateOf(request.state);
      if (!state.saveSnapshot) throw new EngineFailedError("this backend cannot save KV snapshots");
      return { bytes: await state.saveSnapshot(request.path, request.tokens) };
    }
    case "loadSnapshot": {
      const state = stateOf(request.state);
      if (!state.loadSnapshot) throw new EngineFailedError("this backend cannot load KV snapshots");
      const tokens = await state.loadSnapshot(request.path);
      return { length: state.length, tokens };
    }
    case "saveSnapshotDelta": {
      const state = stateOf(request.state);
      if (!state.saveSnapshotDelta) throw new EngineFailedError("this backend cannot write KV deltas");
      return { bytes: await state.saveSnapshotDelta(request.path, request.from, request.tokens) };
    }
    case "appendSnapshot": {
      const state = stateOf(request.state);
      if (!state.appendSnapshot) throw new EngineFailedError("this backend cannot append KV deltas");
      const tokens = await state.appendSnapshot(request.path);
      return { length: state.length, tokens };
    }
    case "probeCache": {
      const probe = await stateOf(request.state).probeCache?.();
      return probe ? { probe } : {};
    }
    case "generateReply": {
      const state = stateOf(request.state);
      if (!state.generateReply) throw new EngineFailedError("this backend has no reply loop");
      const run = state.generateReply(request.tokens, { sample: request.sample, maxTokens: request.maxTokens }, (token) => send({ id, token }));
      replies.set(id, run);
      try {
        await run.done;
      } finally {
        replies.delete(id);
      }
      return { length: state.length, speculation: run.speculation?.(), serverCached: run.serverCached?.() };
    }
    case "disposeState": {
      const state = states.get(request.state);
      states.delete(request.state);
      await state?.dispose();
      return {};
    }
  }
}

process.on("message", (raw: unknown) => {
  const message = parseToEngine(raw);
  if (!message) {
    // Every request is answered (invariant 8): one that carries an id gets a typed error;
    // one without an id cannot be answered and is logged on stderr.
    const id = requestIdOf(raw);
    if (id !== undefined) {
      const op = (raw as { request?: { op?: unknown } }).request?.op;
      send({ id, ok: false, error: { code: "engine_failed", message: `engine process: invalid ${typeof op === "string" ? `"${op.slice(0, 40)}" ` : ""}request` } });
    } else process.stderr.write(`engine-host: ignored a malformed message\n`);
    return;
  }
  if ("cancel" in message) {
    replies.get(message.cancel)?.cancel();
    return;
  }
  handle(message.id, message.request).then(
    (value) => send({ id: message.id, ok: true, value }),
    (error: unknown) => send({ id: message.id, ok: false, error: wireError(error) }),
  );
});

// The parent went away (closed our IPC channel): free the model and leave.
process.on("disconnect", () => {
  void (engine?.dispose() ?? Promise.resolve()).finally(() => process.exit(0));
});
