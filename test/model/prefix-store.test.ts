// The prefix store on the default model, through the engine process: a new conversation after
// a restart (a new engine process, a new pool on the same folder) starts from the long
// instructions another conversation stored, prefills only its own tail, and its greedy reply
// is the reply of a pool that has no store.

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ChatTemplate } from "../../src/extension/core/chat-template";
import type { Engine } from "../../src/extension/core/engine";
import { FilePrefixStore } from "../../src/extension/core/request-pool/file-prefix-store";
import { renderRequest, type RequestMessage } from "../../src/extension/core/request-pool/request-messages";
import { SessionPool, type PoolReply } from "../../src/extension/core/request-pool/session-pool";
import { commonTokenPrefix } from "../../src/extension/core/request-pool/token-prefix";
import { prefixStoreKey } from "../../src/extension/snapshots/prefix-key";
import { defaultModelFile } from "../support/default-model";
import { startProxyEngine } from "../support/engine-process";
import { testThreads } from "../support/test-threads";

const ACTIONS = ["reads a file of the workspace", "replaces a range of lines in a file", "runs a command in the terminal", "searches the workspace for a pattern"];
/** About 1,500 tokens of agent-style instructions and tools, the same in every conversation. */
const INSTRUCTIONS = [
  "You are a coding agent in the user's editor. Answer briefly. Use a tool only when the task needs it.",
  ...Array.from({ length: 40 }, (_, i) => `Tool ${i + 1}, named tool_${i + 1}: ${ACTIONS[i % 4]}; arguments: path (string), line ${i + 1}, text (string). Report what it returned.`),
].join("\n");
const load = () => startProxyEngine({ modelPath: defaultModelFile(), backend: "llamacpp", contextSize: 4096, threads: testThreads() });

interface Served {
  readonly reply: PoolReply;
  readonly tokens: number[];
  readonly text: string;
  readonly ttftMs: number;
}

async function serve(engine: Engine, pool: SessionPool, question: string): Promise<Served> {
  const template = new ChatTemplate(engine.chatTemplate, { bosToken: engine.tokenizer.bos?.text, eosToken: engine.tokenizer.eosText });
  const messages: RequestMessage[] = [{ role: "system", content: INSTRUCTIONS }, { role: "user", content: question }];
  const { tokens } = renderRequest(template, engine.tokenizer, messages);
  const got: number[] = [];
  const started = performance.now();
  let ttftMs = 0;
  const reply = await pool.serve({ tokens, maxTokens: 24, sampling: { temperature: 0 } }, (t) => {
    if (got.length === 0) ttftMs = Math.round(performance.now() - started);
    got.push(t);
  });
  await pool.whenIdle(); // A prompt worth storing is written behind the reply.
  return { reply, tokens, text: engine.tokenizer.decode(got), ttftMs };
}

describe("prefix store (default model, engine process)", () => {
  let dir: string;
  let a: Served;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "prefix-store-model-"));
    const engine = await load();
    const store = new FilePrefixStore({ dir, key: (await prefixStoreKey(engine.info))! });
    const pool = new SessionPool(engine, { size: 1, prefixStore: store });
    try {
      a = await serve(engine, pool, "What does tool_3 do?");
    } finally {
      await pool.dispose();
      store.dispose();
      await engine.dispose();
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("after a restart, a new conversation loads the stored instructions, prefills only its tail, and replies as without the store", async () => {
    assert.ok(a.tokens.length >= 1400, `a long shared prefix (${a.tokens.length} tokens)`);
    assert.equal(a.reply.prefilled, a.tokens.length, "the first conversation prefilled everything");
    assert.equal(readdirSync(dir).filter((f) => f.endsWith(".kv")).length, 1, "its prompt was stored");

    const engine = await load(); // The restart: a new engine process, a new pool and store on the same folder.
    try {
      const store = new FilePrefixStore({ dir, key: (await prefixStoreKey(engine.info))! });
      const pool = new SessionPool(engine, { size: 1, prefixStore: store });
      const b = await serve(engine, pool, "Which tool runs a command?");
      await pool.dispose();
      store.dispose();

      const plain = new SessionPool(engine, { size: 1 });
      const reference = await serve(engine, plain, "Which tool runs a command?");
      await plain.dispose();

      const shared = commonTokenPrefix(a.tokens, b.tokens);
      assert.ok(shared >= 1400, `the instructions are shared (${shared} tokens)`);
      assert.equal(b.reply.restored, "prefix");
      assert.equal(b.reply.restoredTokens, shared);
      assert.equal(b.reply.cached, shared);
      assert.equal(b.reply.prefilled, b.tokens.length - shared, "only the tail prefilled");
      assert.equal(reference.reply.prefilled, b.tokens.length);
      assert.equal(b.text, reference.text, "the greedy reply of a pool without the store");
      assert.ok(b.text.length > 0);
      console.log(
        `prefix store: ${shared} of ${b.tokens.length} tokens restored, ${b.reply.prefilled} prefilled, first token ${b.ttftMs} ms; ` +
          `without the store ${reference.reply.prefilled} prefilled, first token ${reference.ttftMs} ms (first conversation: ${a.ttftMs} ms)`,
      );
    } finally {
      await engine.dispose();
    }
  });
});
