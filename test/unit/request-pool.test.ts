// The session pool on the engine test double (its next token hashes the whole cached
// sequence, so a reply served from a rewound or restored cache equals a fresh prefill's only
// if the cache holds exactly the request): stateless requests served from cached sessions.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChatTemplate } from "../../src/extension/core/chat-template";
import { CancelledError, CapacityError } from "../../src/extension/core/errors";
import { renderRequest } from "../../src/extension/core/request-pool/request-messages";
import { type RequestMessage } from "../../src/extension/core/request-pool/request-shape";
import { RequestPool, type PoolReply } from "../../src/extension/core/request-pool/request-pool";
import { Session } from "../../src/extension/core/session";
import { FakeEngine, HashState } from "../support/fake-engine";

const greedy = { temperature: 0 };

async function freshReply(engine: FakeEngine, tokens: readonly number[], maxTokens = 64, replyLength = 12): Promise<number[]> {
  const session = new Session(new HashState(engine.info.capacity, replyLength), engine.tokenizer, 128);
  await session.prefill(tokens);
  const out: number[] = [];
  for await (const token of session.generate({ maxTokens, sampling: greedy })) out.push(token);
  return out;
}

class Conversation {
  readonly messages: RequestMessage[] = [{ role: "system", content: "You are a test." }];
  constructor(
    private readonly engine: FakeEngine,
    private readonly pool: RequestPool,
    private readonly name: string,
    private readonly replyLength = 12,
  ) {}

  /** One request the way VS Code's Chat sends it: the whole history, the previous replies as received. */
  async ask(question: string): Promise<{ reply: PoolReply; tokens: number[]; text: string }> {
    this.messages.push({ role: "user", content: `${this.name}: ${question}` });
    const { tokens } = renderRequest(new ChatTemplate(this.engine.chatTemplate), this.engine.tokenizer, this.messages);
    const got: number[] = [];
    const reply = await this.pool.serve({ tokens, maxTokens: 64, sampling: greedy }, (t) => got.push(t));
    assert.deepEqual(got, await freshReply(this.engine, tokens, 64, this.replyLength), "served reply == a fresh prefill's reply");
    const text = this.engine.tokenizer.decode(got);
    this.messages.push({ role: "assistant", content: text });
    return { reply, tokens, text };
  }
}

for (const replyLoop of [false, true]) {
  describe(`RequestPool${replyLoop ? " (backend reply loop)" : ""}`, () => {
    it("a 6-request conversation prefills only each new message and its template tokens", async () => {
      const engine = new FakeEngine(4096, 12, undefined, replyLoop);
      const pool = new RequestPool(engine, { size: 4 });
      const chat = new Conversation(engine, pool, "a");
      let previousPosition = 0;
      for (let i = 0; i < 6; i++) {
        const { reply, tokens } = await chat.ask(`question ${i}`);
        assert.equal(reply.cached, i === 0 ? 0 : previousPosition, `request ${i + 1} reuses everything cached`);
        assert.equal(reply.prefilled, tokens.length - reply.cached);
        assert.equal(reply.rewound, 0);
        assert.equal(reply.sessionId, "s1");
        previousPosition = reply.position;
      }
      assert.equal(engine.states.length, 1, "one KV state served the whole conversation");
      await pool.dispose();
    });

    it("two interleaved conversations both stay cached", async () => {
      const engine = new FakeEngine(4096, 12, undefined, replyLoop);
      const pool = new RequestPool(engine, { size: 4 });
      const a = new Conversation(engine, pool, "alpha");
      const b = new Conversation(engine, pool, "beta");
      const positions = new Map<string, number>();
      for (let i = 0; i < 4; i++) {
        for (const [name, chat] of [["a", a], ["b", b]] as const) {
          const { reply } = await chat.ask(`q${i}`);
          if (i > 0) assert.equal(reply.cached, positions.get(name), `${name} request ${i + 1} cached`);
          positions.set(name, reply.position);
        }
      }
      assert.equal(pool.view().live.length, 2);
      assert.equal(pool.view().parked.length, 0);
      await pool.dispose();
    });

    it("a conversation parked to make room comes back (re-prefilled without snapshots) with the same replies", async () => {
      const engine = new FakeEngine(4096, 12, undefined, replyLoop);
      const pool = new RequestPool(engine, { size: 1 });
      const a = new Conversation(engine, pool, "alpha");
      const b = new Conversation(engine, pool, "beta");
      await a.ask("one");
      const first = await b.ask("one");
      assert.equal(first.reply.parked, "s1", "alpha was parked for beta");
      const back = await a.ask("two");
      assert.equal(back.reply.restored, "reprefill");
      assert.equal(back.reply.sessionId, "s1", "alpha keeps its id");
      assert.equal(back.reply.cached, 0);
      assert.deepEqual(pool.view().parked.map((p) => p.id), [first.reply.sessionId]);
      await pool.dispose();
    });

    it("a short conversation is not taken over by an unrelated one while there is room", async () => {
      const engine = new FakeEngine(4096, 3, undefined, replyLoop);
      // Byte tokens: a slack as long as the whole conversation stands for a real model's 32.
      const pool = new RequestPool(engine, { size: 2, tailSlack: 200 });
      const a = new Conversation(engine, pool, "a", 3);
      const b = new Conversation(engine, pool, "b", 3);
      const a1 = await a.ask("x");
      assert.ok(a1.reply.position < 200, "shorter than the re-tokenization slack");
      const b1 = await b.ask("y");
      assert.notEqual(b1.reply.sessionId, a1.reply.sessionId);
      const a2 = await a.ask("z");
      assert.equal(a2.reply.cached, a1.reply.position);
      assert.equal(a2.reply.sessionId, a1.reply.sessionId);
      await pool.dispose();
    });

    it("two conversations that start with the same message: the first one's reply is parked, not erased", async () => {
      const engine = new FakeEngine(4096, 12, undefined, replyLoop);
      const pool = new RequestPool(engine, { size: 2, minReuse: 8 });
      const a = new Conversation(engine, pool, "same");
      const b = new Conversation(engine, pool, "same");
      const a1 = await a.ask("hello");
      const b1 = await b.ask("hello");
      assert.equal(b1.reply.parked, a1.reply.sessionId, "a's session was parked before b rewound it");
      await b.ask("b goes on");
      const a2 = await a.ask("a goes on");
      assert.equal(a2.reply.sessionId, a1.reply.sessionId);
      assert.equal(a2.reply.restored, "reprefill", "a came back (no snapshots on this test double: re-prefilled)");
      await pool.dispose();
    });

    it("an edited earlier message rewinds to the shared prefix, exactly", async () => {
      const engine = new FakeEngine(4096, 12, undefined, replyLoop);
      const pool = new RequestPool(engine, { size: 2, minReuse: 8 });
      const chat = new Conversation(engine, pool, "a");
      await chat.ask("first question");
      const second = await chat.ask("second question");
      // The user edits the second question (the Chat view resends the history up to it).
      chat.messages.splice(-2, 2);
      const edited = await chat.ask("second question, edited");
      assert.ok(edited.reply.rewound > 0, "the old tail was erased");
      assert.equal(edited.reply.cached + edited.reply.prefilled, edited.tokens.length);
      assert.ok(edited.reply.cached < second.reply.position);
      assert.equal(edited.reply.parked, "s1", "the old branch was parked, not lost");
      await pool.dispose();
    });

    it("a request over capacity is refused with CapacityError and the pool still serves", async () => {
      const engine = new FakeEngine(256, 12, undefined, replyLoop);
      const pool = new RequestPool(engine, { size: 2 });
      await assert.rejects(pool.serve({ tokens: new Array(300).fill(97), maxTokens: 8, sampling: greedy }, () => {}), CapacityError);
      const chat = new Conversation(engine, pool, "a");
      const { reply } = await chat.ask("still here");
      assert.ok(reply.generated > 0);
      await pool.dispose();
    });

    it("cancel mid-reply keeps the session usable; an aborted request never starts", async () => {
      const engine = new FakeEngine(4096, 1000, undefined, replyLoop);
      const pool = new RequestPool(engine, { size: 2 });
      const controller = new AbortController();
      const template = new ChatTemplate(engine.chatTemplate);
      const messages: RequestMessage[] = [{ role: "user", content: "go on forever" }];
      const { tokens } = renderRequest(template, engine.tokenizer, messages);
      let seen = 0;
      const reply = await pool.serve({ tokens, maxTokens: 500, sampling: greedy }, () => {
        if (++seen === 5) controller.abort();
      }, controller.signal);
      assert.equal(reply.stopReason, "cancelled");
      assert.ok(reply.generated >= 5 && reply.generated < 500);
      await assert.rejects(pool.serve({ tokens, maxTokens: 5, sampling: greedy }, () => {}, controller.signal), CancelledError);
      const again: number[] = [];
      const next = await pool.serve({ tokens, maxTokens: 5, sampling: greedy }, (t) => again.push(t));
      assert.deepEqual(again, await freshReply(engine, tokens, 5));
      assert.ok(next.cached >= tokens.length - 1, "the prompt stayed cached");
      await pool.dispose();
    });
  });
}
