// Speculative decoding on the real default model (our llama.cpp build, whose batch and
// single-token kernels compute identical logits): replies are the same tokens with
// speculation as without it over a 30-turn editing chat (overflow included), drafts are
// really verified and accepted, and ledger == cache after every turn; in the engine process a
// SIGKILL in the middle of a speculative reply loses nothing and a KV snapshot restores the
// lookup index with the cache. A template that rewinds every turn gives the same replies too.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { LlamaEngine } from "../../src/extension/backends/llamacpp/llama-engine";
import { Conversation } from "../../src/extension/core/conversation";
import type { Engine } from "../../src/extension/core/engine";
import { SpeculativeEngine } from "../../src/extension/core/speculation/speculative-engine";
import type { TurnStats } from "../../src/extension/core/stats";
import type { ProxyEngine } from "../../src/extension/engine-host/proxy-engine";
import { editRequestSession } from "../../src/tools/peer-bench/edit-requests";
import { defaultModelFile } from "../support/default-model";
import { fixtureModel } from "../support/fixture-models";
import { startProxyEngine } from "../support/engine-process";
import { greedyFromFresh, greedyFromState, InstrumentedEngine } from "../support/instrumented-engine";
import { ourLlamaBuildLoaded, skipWithoutOurBuild } from "../support/our-llama-build";
import { testThreads } from "../support/test-threads";

const TURNS = 30;
const TURN = { maxTokens: 48 };
/** Memory-bound figures, so the policy drafts: the test is about output, not speed. */
const CHEAP = { relative: Array.from({ length: 17 }, (_, k) => 1 + k / 16) };

/** The editing chat: the file attached on the first turn and every fifth, a change asked for each turn. */
function script(): Array<{ text: string; context?: string }> {
  return editRequestSession(TURNS).map((turn, i) => ({
    text: turn.question,
    context: i % 5 === 0 ? `File ${turn.fileName}:\n\`\`\`${turn.language}\n${turn.content}\n\`\`\`` : undefined,
  }));
}

async function converse(engine: Engine, check?: (chat: Conversation, turn: number) => Promise<void>): Promise<TurnStats[]> {
  const chat = await Conversation.create(engine, { turn: TURN });
  const stats: TurnStats[] = [];
  try {
    for (const [i, message] of script().entries()) {
      stats.push(await chat.send(message));
      await check?.(chat, i);
    }
  } finally {
    await chat.dispose();
  }
  return stats;
}

describe("speculative decoding on the default model", () => {
  let target: LlamaEngine;
  let ours = false;
  before(async () => {
    target = await LlamaEngine.load({ modelPath: defaultModelFile(), contextSize: 2048, threads: testThreads() });
    ours = await ourLlamaBuildLoaded();
  });
  after(async () => {
    await target?.dispose();
  });

  it("greedy replies are the same tokens with prompt lookup as without, over 30 turns with an overflow", async (t) => {
    if (!ours) return skipWithoutOurBuild(t, "needs our llama.cpp build (batch and single-token kernels differ in the prebuilt one)");
    const plain = await converse(target);
    const instrumented = new InstrumentedEngine(new SpeculativeEngine(target, { mode: "lookup", verifyCost: CHEAP }));
    const speculative = await converse(instrumented, async (chat, turn) => {
      if (turn % 10 !== 9) return;
      const state = instrumented.states.at(-1)!.inner;
      const ledger = [...chat.ledger];
      assert.equal(state.length, ledger.length, `turn ${turn + 1}: cache length == ledger`);
      assert.deepEqual(await greedyFromState(state, ledger, 4), await greedyFromFresh(target, ledger, 4), `turn ${turn + 1}: ledger == cache`);
    });
    assert.ok(plain.some((s) => s.overflow), "the chat overflowed at least once (speculation across a summarize-and-reset)");
    for (let i = 0; i < TURNS; i++) assert.equal(speculative[i].reply, plain[i].reply, `turn ${i + 1}`);
    const drafted = speculative.reduce((n, s) => n + (s.speculation?.drafted ?? 0), 0);
    const accepted = speculative.reduce((n, s) => n + (s.speculation?.accepted ?? 0), 0);
    const steps = speculative.reduce((n, s) => n + (s.speculation?.steps ?? 0), 0);
    const tokens = speculative.reduce((n, s) => n + s.replyTokens, 0);
    t.diagnostic(`drafted ${drafted}, accepted ${accepted}, ${tokens} reply tokens in ${steps} target steps`);
    assert.ok(accepted > 0 && steps < tokens, "drafts were accepted: fewer target steps than tokens");
  });
});

describe("speculative decoding across template rewinds", () => {
  it("a template that drops earlier thoughts: rewinds every turn, same replies, ledger == cache", async (t) => {
    const fixture = await LlamaEngine.load({ modelPath: fixtureModel("thoughts-dropping"), contextSize: 2048, threads: testThreads() });
    try {
      if (!(await ourLlamaBuildLoaded())) return skipWithoutOurBuild(t, "needs our llama.cpp build (batch and single-token kernels differ in the prebuilt one)");
      const messages = script().slice(0, 6);
      const run = async (engine: Engine) => {
        const chat = await Conversation.create(engine, { turn: TURN });
        const stats: TurnStats[] = [];
        for (const message of messages) stats.push(await chat.send(message));
        return { chat, stats };
      };
      const plain = await run(fixture);
      await plain.chat.dispose();
      const instrumented = new InstrumentedEngine(new SpeculativeEngine(fixture, { mode: "lookup", verifyCost: CHEAP }));
      const spec = await run(instrumented);
      assert.ok(spec.stats.slice(1).some((s) => s.rewound > 0), "the template rewound the cache");
      assert.deepEqual(spec.stats.map((s) => s.reply), plain.stats.map((s) => s.reply));
      assert.ok(spec.stats.some((s) => (s.speculation?.accepted ?? 0) > 0), "drafts were accepted");
      const ledger = [...spec.chat.ledger];
      const state = instrumented.states.at(-1)!.inner;
      assert.deepEqual(await greedyFromState(state, ledger, 4), await greedyFromFresh(fixture, ledger, 4), "ledger == cache");
      await spec.chat.dispose();
    } finally {
      await fixture.dispose();
    }
  });
});

describe("speculative decoding in the engine process", () => {
  let proxy: ProxyEngine;
  let engine: InstrumentedEngine;
  const scratch = mkdtempSync(join(tmpdir(), "spec-"));
  before(async () => {
    proxy = await startProxyEngine({ modelPath: defaultModelFile(), backend: "llamacpp", contextSize: 1024, threads: testThreads(), speculative: "lookup" });
    engine = new InstrumentedEngine(proxy);
  });
  after(async () => {
    await engine?.dispose();
    rmSync(scratch, { recursive: true, force: true });
  });

  const FILE = "def area(width, height):\n    return width * height\n\n\ndef perimeter(width, height):\n    return 2 * (width + height)\n";
  const FIRST = { text: "Here is my file. Repeat it exactly in a code block.", context: `File shapes.py:\n\`\`\`python\n${FILE}\`\`\`` };
  const SECOND = { text: "Now repeat the perimeter function exactly." };

  it("reports drafted and accepted tokens through the engine process", async () => {
    const chat = await Conversation.create(engine, { turn: TURN });
    const stats = await chat.send(FIRST);
    await chat.dispose();
    assert.ok(stats.speculation && stats.speculation.drafted > 0, JSON.stringify(stats.speculation));
    assert.ok(stats.speculation.steps <= stats.replyTokens);
  });

  it("SIGKILL mid speculative reply: nothing lost, the next turn equals a chat that never crashed", async () => {
    const reference = await Conversation.create(engine, { turn: TURN });
    await reference.send(FIRST);
    const expected = await reference.send(SECOND);
    await reference.dispose();

    const chat = await Conversation.create(engine, { turn: TURN });
    await chat.send(FIRST);
    const before = [...chat.ledger];
    let chunks = 0;
    await assert.rejects(
      chat.send({ text: "Repeat the whole file once more." }, {
        onText: () => {
          if (++chunks === 6 && proxy.pid !== undefined) process.kill(proxy.pid, "SIGKILL");
        },
      }),
      (error: unknown) => (error as { code?: string }).code === "engine_crashed",
    );
    assert.deepEqual([...chat.ledger], before, "the failed turn left the ledger as it was");
    const answer = await chat.send(SECOND);
    assert.equal(answer.reply, expected.reply);
    const state = engine.states.at(-1)!.inner;
    const ledger = [...chat.ledger];
    assert.deepEqual(await greedyFromState(state, ledger, 3), await greedyFromFresh(engine, ledger, 3), "ledger == cache");
    await chat.dispose();
  });

  it("a KV snapshot restores the cache and the lookup index: the next reply drafts from the restored tokens", async () => {
    const original = await Conversation.create(engine, { turn: TURN });
    await original.send(FIRST);
    const path = join(scratch, "chat.kv");
    const saved = await original.saveSnapshot(async (conversation, writeCache) => ({ conversation, bytes: await writeCache(path) }));
    assert.ok(saved.bytes && saved.bytes > 0);
    const expected = await original.send(SECOND);
    await original.dispose();

    const restored = await Conversation.create(engine, { turn: TURN });
    assert.equal(await restored.restoreFromSnapshot(saved.conversation, path), true, "the snapshot was adopted");
    const answer = await restored.send(SECOND);
    assert.equal(answer.reply, expected.reply);
    assert.equal(answer.resumed?.from, "snapshot");
    assert.ok((answer.speculation?.accepted ?? 0) > 0, `drafts from the restored tokens were accepted: ${JSON.stringify(answer.speculation)}`);
    await restored.dispose();
  });
});
