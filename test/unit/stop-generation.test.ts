// Stop ends a turn within one token or at once while the backend waits (invariant 6), judged
// by event order, never by time: a backend reply loop whose next token never arrives (a
// stalled server or engine) is cancelled as soon as Stop is pressed, the turn settles as
// stopped, and the ledger holds exactly the tokens taken. Reset and closing the panel do not
// queue behind the wait.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Conversation } from "../../src/extension/core/conversation";
import type { Engine, KvState, ReplyOptions, ReplyRun, SamplingOptions } from "../../src/extension/core/engine";
import { CancelledError } from "../../src/extension/core/errors";
import { ByteTokenizer, CHATML_TEMPLATE, EOS, HashState } from "../support/fake-engine";

/**
 * Test double of a backend with its own reply loop (KvState.generateReply) that sends
 * `tokensBeforeStall` tokens and then waits for one that never comes, until cancel(). Its
 * cache is a HashState; `waiting` resolves when it first starts to wait.
 */
class StallingReplyState implements KvState {
  readonly inner: HashState;
  cancels = 0;
  private startedWaiting!: () => void;
  waiting = new Promise<void>((resolve) => (this.startedWaiting = resolve));

  constructor(
    capacity: number,
    /** Tokens each reply sends before it stalls. */
    public tokensBeforeStall: number,
  ) {
    this.inner = new HashState(capacity, 1000);
  }

  get capacity(): number {
    return this.inner.capacity;
  }

  get length(): number {
    return this.inner.length;
  }

  evaluate(tokens: readonly number[], sample?: SamplingOptions): Promise<number | undefined> {
    return this.inner.evaluate(tokens, sample);
  }

  generateReply(tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void): ReplyRun {
    let cancel!: () => void;
    const cancelled = new Promise<void>((resolve) => (cancel = resolve));
    let isCancelled = false;
    const done = (async () => {
      let next = (await this.inner.evaluate(tokens, options.sample))!;
      for (let sampled = 1; ; sampled++) {
        if (sampled > this.tokensBeforeStall) {
          this.startedWaiting();
          await cancelled; // the token that never arrives
          break;
        }
        onToken(next);
        if (next === EOS || sampled >= options.maxTokens || isCancelled) break;
        next = (await this.inner.evaluate([next], options.sample))!;
      }
      return this.inner.length;
    })();
    return {
      done,
      cancel: () => {
        this.cancels++;
        isCancelled = true;
        cancel();
      },
    };
  }

  truncate(length: number): Promise<void> {
    return this.inner.truncate(length);
  }

  reset(): Promise<void> {
    return this.inner.reset();
  }

  dispose(): Promise<void> {
    return this.inner.dispose();
  }
}

function stallingEngine(tokensBeforeStall: number): Engine & { readonly states: StallingReplyState[] } {
  const states: StallingReplyState[] = [];
  return {
    info: { backend: "llamacpp", modelPath: "fake", modelName: "fake", capacity: 4096, details: "test double: a reply loop that stalls" },
    tokenizer: new ByteTokenizer(),
    chatTemplate: CHATML_TEMPLATE,
    replyLoop: true,
    states,
    createState: async () => {
      const state = new StallingReplyState(4096, tokensBeforeStall);
      states.push(state);
      return state;
    },
    dispose: async () => undefined,
  };
}

/** Whether `promise` settles while nothing but the event loop's own turns pass (no time, no other input). */
async function settlesOnItsOwn(promise: Promise<unknown>, turns = 200): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < turns && !settled; i++) await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe("Stop while a backend's next token never arrives", () => {
  it("the turn settles as stopped; the ledger holds the tokens taken, and the cache follows it", async () => {
    const engine = stallingEngine(4);
    const chat = await Conversation.create(engine);
    const texts: string[] = [];
    const turn = chat.send({ text: "hello" }, { onText: (t) => texts.push(t) });
    await engine.states[0].waiting;
    assert.equal(texts.join("").length, 4, "four tokens arrived before the stall");
    chat.stop();
    assert.ok(await settlesOnItsOwn(turn), "the turn settled after Stop, without another token");
    const stats = await turn;
    assert.equal(stats.stopReason, "cancelled");
    assert.equal(stats.replyTokens, 4);
    const state = engine.states[0].inner;
    assert.deepEqual(state.cache, [...chat.ledger].slice(0, state.cache.length), "the cache is a prefix of the ledger");
    assert.deepEqual(new ByteTokenizer().decode(chat.ledger.slice(-4)), texts.join(""), "the ledger ends with the reply taken");
    engine.states[0].tokensBeforeStall = Infinity; // later replies run to their end
    const next = await chat.send({ text: "again" });
    assert.ok(next.rewound >= 0);
    assert.deepEqual(state.cache, [...chat.ledger].slice(0, state.cache.length));
    await chat.dispose();
  });

  it("a Stop before the first token (a backend still waiting to start) ends the turn as stopped with an empty reply", async () => {
    const engine = stallingEngine(0);
    const chat = await Conversation.create(engine);
    const turn = chat.send({ text: "hello" });
    await engine.states[0].waiting;
    chat.stop();
    assert.ok(await settlesOnItsOwn(turn));
    const stats = await turn;
    assert.equal(stats.stopReason, "cancelled");
    assert.equal(stats.replyTokens, 0);
    assert.equal(engine.states[0].cancels > 0, true);
    await chat.dispose();
  });

  it("Reset does not queue behind the wait: it runs at once and starts a fresh state", async () => {
    const engine = stallingEngine(3);
    const chat = await Conversation.create(engine);
    const turn = chat.send({ text: "hello" });
    const queued = assert.rejects(chat.send({ text: "queued" }), CancelledError);
    await engine.states[0].waiting;
    const reset = chat.reset();
    assert.ok(await settlesOnItsOwn(reset), "the reset ran without waiting for a token");
    await reset;
    assert.equal((await turn).stopReason, "cancelled");
    await queued;
    assert.equal(chat.position, 0);
    assert.equal(engine.states[0].length, 0);
    await chat.dispose();
  });

  it("closing the panel (dispose) does not wait for the token either", async () => {
    const engine = stallingEngine(2);
    const chat = await Conversation.create(engine);
    const turn = chat.send({ text: "hello" });
    await engine.states[0].waiting;
    const closed = chat.dispose();
    assert.ok(await settlesOnItsOwn(closed));
    assert.equal((await turn).stopReason, "cancelled");
  });
});
