// The ledger == cache check from the engine's side (core/cache-check.ts, KvState.probeCache)
// on test doubles: a cache that lost a cell behind the ledger is reported, a state the session
// already sees lost is not, the probe runs in turn with the session's operations, travels the
// engine process's protocol validated, and a remote state reports the server's own count only
// while it describes the tokens the state holds.

import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";
import { ServerConnection } from "../../src/extension/backends/remote/http";
import { LlamaServerDialect } from "../../src/extension/backends/remote/llama-server";
import { serverBaseUrl } from "../../src/extension/backends/remote/options";
import { RemoteKvState } from "../../src/extension/backends/remote/remote-state";
import { cacheMismatch } from "../../src/extension/core/cache-check";
import { Conversation } from "../../src/extension/core/conversation";
import type { Tokenizer } from "../../src/extension/core/engine";
import { parseToEngine, replyChecks } from "../../src/extension/engine-host/protocol";
import { FakeEngine, type HashState } from "../support/fake-engine";

describe("cacheMismatch", () => {
  it("agrees only on exactly the evaluated tokens from position 0", () => {
    assert.equal(cacheMismatch({ held: 5, firstPosition: 0, source: "s" }, 5), undefined);
    assert.equal(cacheMismatch({ held: 0, firstPosition: -1, source: "s" }, 0), undefined);
    assert.equal(cacheMismatch({ held: 5, source: "s" }, 5), undefined, "an engine without positions: the count alone");
    assert.equal(cacheMismatch({ held: 4, firstPosition: 0, source: "s" }, 5), "the engine holds 4 tokens, the ledger 5 (s)");
    assert.equal(cacheMismatch({ held: 5, firstPosition: 1, source: "s" }, 5), "its first position is 1, not 0 (s)");
    assert.match(cacheMismatch({ held: 0, firstPosition: 0, source: "s" }, 0) ?? "", /first position is 0, not -1/);
  });
});

describe("Conversation.probeCache on the hash double", () => {
  async function chatAfterOneTurn(): Promise<{ chat: Conversation; state: HashState }> {
    const engine = new FakeEngine(4096, 6);
    const chat = await Conversation.create(engine, { turn: { maxTokens: 8 }, prefillChunk: 16 });
    await chat.send({ text: "hello" });
    return { chat, state: engine.states[0]! };
  }

  it("agrees after a turn: the double's cells are the ledger", async () => {
    const { chat } = await chatAfterOneTurn();
    const check = await chat.probeCache();
    assert.deepEqual(check, { evaluated: chat.ledger.length, ledger: chat.ledger.length, probe: { held: chat.ledger.length, source: "test double's cache" }, resyncPending: false, mismatch: undefined });
  });

  it("reports a cell lost behind the ledger's back, where ledger length == position still held", async () => {
    const { chat, state } = await chatAfterOneTurn();
    const counted = state.length;
    // The backend's counter (node-llama-cpp's nextTokenIndex, say) did not see its engine lose the cell.
    state.cache.pop();
    Object.defineProperty(state, "length", { get: () => counted });
    assert.equal(chat.position, chat.ledger.length, "the old integration check: position is the ledger's own length");
    const check = await chat.probeCache();
    assert.equal(check.mismatch, `the engine holds ${counted - 1} tokens, the ledger ${counted} (test double's cache)`);
  });

  it("a state the session already sees lost (an engine process died) is resync pending, not a mismatch, and agrees after the next turn", async () => {
    const { chat, state } = await chatAfterOneTurn();
    state.cache.length = 0;
    const lost = await chat.probeCache();
    assert.equal(lost.resyncPending, true);
    assert.equal(lost.mismatch, undefined);
    await chat.send({ text: "again" });
    const after = await chat.probeCache();
    assert.equal(after.resyncPending, false);
    assert.equal(after.probe?.held, chat.ledger.length);
    assert.equal(after.mismatch, undefined);
  });

  it("runs in turn: a probe asked while a turn runs sees the cache that turn left", async () => {
    const engine = new FakeEngine(4096, 6);
    const chat = await Conversation.create(engine, { turn: { maxTokens: 8 }, prefillChunk: 4 });
    const order: string[] = [];
    const sending = chat.send({ text: "a longer message, several chunks" }).then(() => order.push("send"));
    const probing = chat.probeCache().then((check) => (order.push("probe"), check));
    const [, check] = await Promise.all([sending, probing]);
    assert.deepEqual(order, ["send", "probe"]);
    assert.equal(check.evaluated, chat.ledger.length);
    assert.equal(check.probe?.held, chat.ledger.length);
  });
});

describe("the probe through the engine process's protocol", () => {
  it("is a request of its own, validated on both sides", () => {
    assert.deepEqual(parseToEngine({ id: 3, request: { op: "probeCache", state: 1 } }), { id: 3, request: { op: "probeCache", state: 1 } });
    assert.equal(parseToEngine({ id: 3, request: { op: "probeCache" } }), undefined, "no state");
    assert.equal(parseToEngine({ id: 3, request: { op: "probeCache", state: -1 } }), undefined);
    const ok = replyChecks.probeCache;
    assert.ok(ok({ probe: { held: 3, firstPosition: 0, source: "llama_memory_seq_pos_min/max" } }));
    assert.ok(ok({ probe: { held: 0, firstPosition: -1, source: "x" } }));
    assert.ok(ok({}), "a backend without a probe");
    for (const bad of [{ probe: { held: -1, source: "x" } }, { probe: { held: 1.5, source: "x" } }, { probe: { held: 1, firstPosition: -2, source: "x" } }, { probe: { held: 1 } }, { probe: { held: 1, source: "x".repeat(201) } }, { probe: "3" }, null]) {
      assert.equal(ok(bad), false, JSON.stringify(bad));
    }
  });
});

describe("RemoteKvState.probeCache (llama-server's tokens_cached)", () => {
  const servers: Server[] = [];
  after(() => servers.forEach((s) => s.close()));
  const tokenizer: Tokenizer = {
    encode: (text) => [...text].map((c) => c.codePointAt(0)!),
    decode: (tokens) => String.fromCodePoint(...tokens),
    isEndOfGeneration: (token) => token === 0,
    eosText: "\u0000",
  };

  /** A llama-server that streams `reply` (ids) and ends with its own count `held`. */
  async function server(reply: readonly number[], held: number): Promise<string> {
    const s = createServer(async (req, res) => {
      for await (const _ of req) void _;
      res.writeHead(200, { "content-type": "text/event-stream" });
      reply.forEach((token, i) => res.write(`data: ${JSON.stringify({ content: String.fromCodePoint(token), tokens: [token], stop: false, id_slot: -1, tokens_predicted: i + 1 })}\n\n`));
      res.end(`data: ${JSON.stringify({ content: "", tokens: [], stop: true, id_slot: 0, stop_type: "eos", timings: { cache_n: 0 }, tokens_cached: held })}\n\n`);
    });
    servers.push(s);
    await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  }

  function stateOn(url: string): RemoteKvState {
    const dialect = new LlamaServerDialect(new ServerConnection(serverBaseUrl(url), undefined), (text) => tokenizer.encode(text, { specials: false }));
    return new RemoteKvState({ dialect, tokenizer, endToken: 0, retry: { baseDelayMs: 10, maxDelayMs: 20, maxWaitMs: 500 } }, 1000, undefined, () => undefined);
  }

  it("after a reply: the server's count, which the test server can make disagree; unknown once the state moved on", async () => {
    // Prompt ABC, reply D E then the end token: the server decoded A B C D E (5).
    const state = stateOn(await server([68, 69, 0], 5));
    assert.equal(await state.probeCache(), undefined, "nothing sent yet");
    await state.generateReply([65, 66, 67], { sample: { temperature: 0 }, maxTokens: 8 }, () => undefined).done;
    assert.equal(state.length, 5);
    assert.deepEqual(await state.probeCache(), { held: 5, source: "llama-server tokens_cached" });
    await state.evaluate([70]);
    assert.equal(await state.probeCache(), undefined, "a prefill only recorded: the server has not seen it");
    const lying = stateOn(await server([68, 69, 0], 4));
    await lying.generateReply([65, 66, 67], { sample: { temperature: 0 }, maxTokens: 8 }, () => undefined).done;
    assert.equal(cacheMismatch((await lying.probeCache())!, lying.length), "the engine holds 4 tokens, the ledger 5 (llama-server tokens_cached)");
    await lying.truncate(3);
    assert.equal(await lying.probeCache(), undefined, "a truncate the server sees only with the next request");
  });
});
