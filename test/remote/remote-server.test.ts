// The remote backend against a real llama-server (the peer bench's build of the pinned
// llama.cpp source) with 4 slots, started and stopped here: the server's own cache count
// per turn equals the previous position (the slot holds exactly our ledger), sessions keep
// their slots, a server killed mid-reply ends the turn with a typed error and the next turn
// re-sends the conversation, and a server with another vocabulary is refused.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { RemoteEngine } from "../../src/extension/backends/remote/remote-engine";
import type { ServerStatus } from "../../src/extension/core/server-status";
import type { RemoteKvState } from "../../src/extension/backends/remote/remote-state";
import { Conversation } from "../../src/extension/core/conversation";
import type { Engine, KvState } from "../../src/extension/core/engine";
import { StatefulChatError } from "../../src/extension/core/errors";
import type { TurnStats } from "../../src/extension/core/stats";
import { defaultModelFile } from "../support/default-model";
import { startProxyEngine } from "../support/engine-process";
import { runCli } from "../support/run-cli";
import { swappedVocabularyModel, TestLlamaServer } from "./remote-server-fixture";

const TEN_TURNS = [
  "Write a Python function that adds two numbers.",
  "Now make it subtract.",
  "Add a docstring.",
  "What does the function return for 5 and 3?",
  "Rename it to difference.",
  "Write a test for it.",
  "Use pytest.",
  "What is a fixture?",
  "Show a fixture that returns 42.",
  "Summarize what we wrote.",
];

/** Records the states an engine makes (to read the remote state's slot). */
function recordingStates(engine: Engine): { engine: Engine; states: KvState[] } {
  const states: KvState[] = [];
  return {
    states,
    engine: {
      info: engine.info,
      tokenizer: engine.tokenizer,
      chatTemplate: engine.chatTemplate,
      replyLoop: engine.replyLoop,
      createState: async () => {
        const state = await engine.createState();
        states.push(state);
        return state;
      },
      dispose: () => engine.dispose(),
    },
  };
}

describe("remote backend on llama-server -np 4 (default model)", () => {
  let server: TestLlamaServer;
  before(async () => {
    server = await TestLlamaServer.start({ modelPath: defaultModelFile(), slots: 4, contextPerSlot: 2048, threads: 2 });
  });
  after(async () => {
    await server?.stop();
  });

  it("CLI, 10 turns: every turn the server reports reusing exactly the previous position", async () => {
    const run = await runCli(["chat", "--json", "--backend", "remote", "--server", server.url, "--model", defaultModelFile(), "--max-tokens", "32", "--ctx", "2048"], TEN_TURNS);
    assert.equal(run.code, 0, run.stderr);
    const ready = run.events[0];
    assert.equal(ready.event, "ready");
    assert.equal(ready.backend, "remote");
    assert.match(String(ready.details), /llama-server at http:\/\/127\.0\.0\.1:\d+ .*4 slots of 2048 tokens.*tokenizer checked/);
    const turns = run.events.filter((e) => e.event === "turn") as unknown as TurnStats[];
    assert.equal(turns.length, 10, JSON.stringify(run.events.filter((e) => e.event === "error")));
    assert.equal(turns[0].serverCached, 0, "a fresh server has nothing cached");
    for (let i = 1; i < turns.length; i++) {
      assert.equal(turns[i].serverCached, turns[i - 1].position, `turn ${i + 1}: the server reused the whole previous conversation`);
      assert.equal(turns[i].cached, turns[i - 1].position);
      assert.ok(turns[i].replyTokens > 0);
    }
    // Replies cut at --max-tokens end on a token the server sampled last: it still holds it.
    assert.ok(turns.slice(0, -1).some((t) => t.stopReason === "max_tokens"), "some turn stopped at the token budget");
  });

  it("two chats at once keep their own slots, and every turn reuses its whole conversation", async () => {
    const remote = await RemoteEngine.connect({ server: { url: server.url }, modelPath: defaultModelFile(), contextSize: 2048 });
    const { engine, states } = recordingStates(remote);
    try {
      const chats = [await Conversation.create(engine, { turn: { maxTokens: 16 } }), await Conversation.create(engine, { turn: { maxTokens: 16 } })];
      const questions = [["What is a Python list?", "How do I sort it?", "And reverse it?"], ["What is a JavaScript array?", "How do I map over it?", "And filter it?"]];
      const stats = await Promise.all(
        chats.map(async (chat, c) => {
          const seen: TurnStats[] = [];
          for (const text of questions[c]) seen.push(await chat.send({ text }));
          return seen;
        }),
      );
      for (const seen of stats) {
        for (let i = 1; i < seen.length; i++) assert.equal(seen[i].serverCached, seen[i - 1].position);
      }
      const slots = states.map((s) => (s as RemoteKvState).pinnedSlot);
      assert.ok(slots.every((s) => s !== undefined), "each chat is pinned to the slot that served it");
      assert.notEqual(slots[0], slots[1], "two chats, two slots");
      for (const chat of chats) await chat.dispose();
    } finally {
      await remote.dispose();
    }
  });

  it("also through an engine process: the load request is validated there and serverCached comes back over IPC", async () => {
    const proxy = await startProxyEngine({ modelPath: defaultModelFile(), backend: "remote", contextSize: 2048, server: { url: server.url, kind: "llama-server" } });
    try {
      assert.equal(proxy.info.backend, "remote");
      const chat = await Conversation.create(proxy, { turn: { maxTokens: 16 } });
      const first = await chat.send({ text: "Hello!" });
      const second = await chat.send({ text: "What is 2 + 2?" });
      assert.equal(second.serverCached, first.position);
      await chat.dispose();
    } finally {
      await proxy.dispose();
    }
  });

  it("server killed mid-reply: server_unreachable, the ledger as before the turn, the next turn re-sends it all and is answered", async () => {
    const remote = await RemoteEngine.connect({ server: { url: server.url }, modelPath: defaultModelFile(), contextSize: 2048 });
    const { engine, states } = recordingStates(remote);
    try {
      const chat = await Conversation.create(engine, { turn: { maxTokens: 48 } });
      await chat.send({ text: "My name is Ada and my favourite number is 42." });
      const ledgerBefore = [...chat.ledger];
      const slot = (states[0] as RemoteKvState).pinnedSlot;
      assert.notEqual(slot, undefined);
      let partial = "";
      let killed: Promise<void> | undefined;
      await assert.rejects(
        chat.send({ text: "Write a long poem about the sea, with many verses." }, {
          onText: (text) => {
            partial += text;
            killed ??= server.kill();
          },
        }),
        (error: unknown) => {
          assert.ok(error instanceof StatefulChatError, String(error));
          assert.equal(error.code, "server_unreachable", error.message);
          assert.match(error.message, /broke during the reply|ended the stream|Cannot reach/);
          return true;
        },
      );
      await killed;
      assert.ok(partial.length > 0, "part of the reply streamed before the kill");
      assert.deepEqual([...chat.ledger], ledgerBefore, "the failed turn left the conversation as before it");

      // The same server address, restarted (empty caches).
      await server.launch();
      const answer = await chat.send({ text: "What is my favourite number?" });
      assert.ok(answer.replyTokens > 0 && answer.reply.length > 0, "answered");
      assert.equal(answer.serverCached, 0, "the restarted server had nothing: a miss, shown");
      assert.deepEqual(answer.resumed, { from: "reprefill", tokens: ledgerBefore.length }, "the conversation was re-sent in full");
      assert.equal(answer.cached, 0);
      assert.equal((states[0] as RemoteKvState).pinnedSlot, slot, "the reconnect kept the chat's slot");
      const next = await chat.send({ text: "Thanks." });
      assert.equal(next.serverCached, answer.position, "and the turn after reuses it all again");
      await chat.dispose();
    } finally {
      await engine.dispose();
    }
  });
});

describe("remote backend on a full llama-server (-np 1)", () => {
  it("a second chat's turn waits in the server's queue, shown as queued then running, and both are answered", async () => {
    const server = await TestLlamaServer.start({ modelPath: defaultModelFile(), slots: 1, contextPerSlot: 2048, threads: 2 });
    const engine = await RemoteEngine.connect({ server: { url: server.url }, modelPath: defaultModelFile(), contextSize: 2048 });
    try {
      const statuses: ServerStatus[][] = [[], []];
      // The first reply is long (64 tokens, about a second here even when the machine is idle),
      // and the second message is sent once it streams: it must wait for the only slot.
      const chats = await Promise.all([64, 16].map((maxTokens, i) => Conversation.create(engine.withServerStatus((s) => statuses[i].push(s)), { turn: { maxTokens } })));
      let streaming!: () => void;
      const started = new Promise<void>((resolve) => (streaming = resolve));
      const first = chats[0].send({ text: "Write a long poem about the sea, with many verses." }, { onText: () => streaming() });
      await started;
      const second = chats[1].send({ text: "What is a Python list?" });
      const [a, b] = await Promise.all([first, second]);
      assert.ok(a.replyTokens > 0 && b.replyTokens > 0, "both answered");
      assert.deepEqual(statuses[1].map((s) => s.state), ["queued", "running"], "the second waited for the only slot, visibly");
      assert.deepEqual(statuses[0], [], "the first got the slot at once");
      // One slot for two conversations: what the server kept is its own count (its prompt
      // cache in RAM may bring a conversation back), never more than was sent before.
      const again = await chats[0].send({ text: "Thanks." });
      assert.ok(again.serverCached !== undefined && again.serverCached <= a.position, `server reused ${again.serverCached} of ${a.position}`);
      for (const chat of chats) await chat.dispose();
    } finally {
      await engine.dispose();
      await server.stop();
    }
  });
});

describe("remote backend: tokenizer check at connect", () => {
  it("refuses a llama-server whose vocabulary maps the probe text to other ids (tokenizer_mismatch), in-process and from the CLI", async () => {
    const other = await TestLlamaServer.start({ modelPath: swappedVocabularyModel(), slots: 1, contextPerSlot: 512, threads: 1 });
    try {
      await assert.rejects(RemoteEngine.connect({ server: { url: other.url }, modelPath: defaultModelFile() }), (error: unknown) => {
        assert.ok(error instanceof StatefulChatError, String(error));
        assert.equal(error.code, "tokenizer_mismatch");
        assert.match(error.message, /differs from the local one .* from token \d+ on \(server \[\d+/);
        return true;
      });
      const run = await runCli(["chat", "--json", "--backend", "remote", "--server", other.url, "--model", defaultModelFile()], ["Hello"]);
      assert.equal(run.code, 1);
      assert.equal(run.events[0].event, "error");
      assert.equal(run.events[0].code, "tokenizer_mismatch");
    } finally {
      await other.stop();
    }
  });
});
