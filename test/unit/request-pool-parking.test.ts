// The session pool at its parking limits, with snapshots written to a real folder (an engine
// test double whose states save and load their cache as files): the conversation coming
// back is restored from its own snapshot, the one parked to make room for it is kept, and no
// .kv file outlives the conversation it belongs to.

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { ChatTemplate } from "../../src/extension/core/chat-template";
import { renderRequest } from "../../src/extension/core/request-pool/request-messages";
import { type RequestMessage } from "../../src/extension/core/request-pool/request-shape";
import { RequestPool, type PoolReply } from "../../src/extension/core/request-pool/request-pool";
import { Session } from "../../src/extension/core/session";
import { HashState } from "../support/fake-engine";
import { SnapshotEngine } from "../support/snapshot-engine";

const greedy = { temperature: 0 };

async function freshReply(engine: SnapshotEngine, tokens: readonly number[]): Promise<number[]> {
  const session = new Session(new HashState(engine.capacity, 12), engine.tokenizer, 128);
  await session.prefill(tokens);
  const out: number[] = [];
  for await (const token of session.generate({ maxTokens: 64, sampling: greedy })) out.push(token);
  return out;
}

/** One conversation as VS Code's Chat sends it: the whole history each time. */
async function ask(engine: SnapshotEngine, pool: RequestPool, messages: RequestMessage[], question: string): Promise<PoolReply> {
  messages.push({ role: "user", content: question });
  const { tokens } = renderRequest(new ChatTemplate(engine.chatTemplate), engine.tokenizer, messages);
  const got: number[] = [];
  const reply = await pool.serve({ tokens, maxTokens: 64, sampling: greedy }, (t) => got.push(t));
  assert.deepEqual(got, await freshReply(engine, tokens), "served reply == a fresh prefill's reply");
  messages.push({ role: "assistant", content: engine.tokenizer.decode(got) });
  return reply;
}

describe("RequestPool parking (snapshots on disk)", () => {
  let dir: string;
  let snapshotDir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pool-parking-"));
    snapshotDir = join(dir, "parked");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const kvFiles = () => readdirSync(snapshotDir).filter((f) => f.endsWith(".kv")).sort();

  it("at the maxParked limit, the conversation coming back is restored from its snapshot and the one parked for it is kept", async () => {
    const engine = new SnapshotEngine(dir);
    const pool = new RequestPool(engine, { size: 1, maxParked: 1, snapshotDir });
    const a: RequestMessage[] = [{ role: "system", content: "You are a test." }];
    const b: RequestMessage[] = [{ role: "system", content: "You are a test." }];
    const a1 = await ask(engine, pool, a, "alpha one");
    const b1 = await ask(engine, pool, b, "beta one");
    assert.equal(b1.parked, a1.sessionId, "alpha was parked for beta");
    assert.equal(kvFiles().length, 1, "alpha's snapshot");

    // The parked list is full (alpha); alpha comes back, so beta has to be parked.
    const a2 = await ask(engine, pool, a, "alpha two");
    assert.equal(a2.sessionId, a1.sessionId);
    assert.equal(a2.parked, b1.sessionId, "beta was parked for alpha");
    assert.equal(a2.restored, "snapshot", "alpha came back from its own snapshot (not evicted by parking beta)");
    assert.equal(a2.cached, a1.position, "everything alpha held was cached");
    assert.deepEqual(pool.view().parked.map((p) => [p.id, p.snapshot]), [[b1.sessionId, true]], "beta is parked, with its snapshot");
    assert.equal(kvFiles().length, 1, "one file: beta's (alpha's was used and deleted)");

    const b2 = await ask(engine, pool, b, "beta two");
    assert.equal(b2.sessionId, b1.sessionId);
    assert.equal(b2.restored, "snapshot", "beta comes back from its snapshot too");
    assert.deepEqual(pool.view().parked.map((p) => p.id), [a1.sessionId]);
    assert.equal(kvFiles().length, 1);
    await pool.dispose();
    assert.deepEqual(kvFiles(), [], "dispose leaves no .kv file behind");
  });

  it("past maxParked the oldest parked conversation is forgotten with its file, never the one being restored", async () => {
    const engine = new SnapshotEngine(dir);
    const pool = new RequestPool(engine, { size: 1, maxParked: 2, snapshotDir });
    const chats = ["a", "b", "c"].map(() => [{ role: "system", content: "You are a test." }] as RequestMessage[]);
    const first: PoolReply[] = [];
    for (const [i, chat] of chats.entries()) first.push(await ask(engine, pool, chat, `chat ${i} one`));
    // a and b parked, c live. a (the oldest parked) comes back: c is parked, the list is [b, c].
    const back = await ask(engine, pool, chats[0], "chat 0 two");
    assert.equal(back.sessionId, first[0].sessionId);
    assert.equal(back.restored, "snapshot");
    assert.deepEqual(pool.view().parked.map((p) => p.id), [first[1].sessionId, first[2].sessionId]);
    assert.equal(kvFiles().length, 2, "b's and c's snapshots, nothing leaked");
    await pool.dispose();
    assert.deepEqual(kvFiles(), []);
  });
});
