// The store warm for the next conversation (issue 36 item 4): with the stable-prefix layout a
// request knows where what the next new conversation shares ends (before the per-conversation
// template-variables block; after the per-load skills block once it appears). The pool stores
// exactly that prefix, during the first request's prefill, in memory and on disk, so a second
// new conversation and one after a restart (a new pool and store on the same folder) load it.
// On the snapshot test double, whose next token hashes the whole cache: every reply is checked
// against a fresh prefill's.

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { ChatTemplate } from "../../src/extension/core/chat-template";
import { FilePrefixStore } from "../../src/extension/core/request-pool/file-prefix-store";
import { PREFIX_BLOCK_TOKENS, tokenBytes } from "../../src/extension/core/request-pool/prefix-blocks";
import { renderRequest, type RenderedRequest } from "../../src/extension/core/request-pool/request-messages";
import { type RequestMessage } from "../../src/extension/core/request-pool/request-shape";
import { RequestPool, type PoolReply } from "../../src/extension/core/request-pool/request-pool";
import { commonTokenPrefix } from "../../src/extension/core/request-pool/token-prefix";
import { Session } from "../../src/extension/core/session";
import { prefixStoreKey } from "../../src/extension/snapshots/prefix-key";
import { HashState } from "../support/fake-engine";
import { SnapshotEngine } from "../support/snapshot-engine";

const greedy = { temperature: 0 };
/** ~1,700 byte tokens of instructions (agent mode's, with its tools, are ~15k). */
const INSTRUCTIONS = "You are a careful assistant; follow the tool rules. ".repeat(33);
/** Over a block of byte tokens: worth storing when it appears. */
const SKILLS = `<instructions>\n<skills>\n${"<skill><name>setup</name><file>/skills/setup/SKILL.md</file></skill>\n".repeat(6)}</skills>\n</instructions>`;
const variables = (conversation: string) =>
  "The following template variables are available for this session:\n" +
  `- VSCODE_TARGET_SESSION_LOG: /storage/ws1/GitHub.copilot-chat/debug-logs/${conversation}\n` +
  "When a skill or instruction references {{VSCODE_VARIABLE_NAME}}, substitute the corresponding value above.";
/** A new conversation's first request as Copilot Chat 0.67 writes it. */
const firstRequest = (conversation: string, skills = false): RequestMessage[] => [
  { role: "system", content: `${INSTRUCTIONS}\n${skills ? `\n${SKILLS}\n` : ""}${variables(conversation)}` },
  { role: "user", content: `<environment_info>Linux</environment_info>\n<userRequest>${conversation}: list the files</userRequest>` },
];

async function freshReply(engine: SnapshotEngine, tokens: readonly number[]): Promise<number[]> {
  const session = new Session(new HashState(engine.capacity, 12), engine.tokenizer, 128);
  await session.prefill(tokens);
  const out: number[] = [];
  for await (const token of session.generate({ maxTokens: 32, sampling: greedy })) out.push(token);
  return out;
}

describe("stable prefix in the prefix store (issue 36 item 4)", () => {
  let dir: string;
  let prefixDir: string;
  let engine: SnapshotEngine;
  let key: string;
  const open: Array<{ pool: RequestPool; store: FilePrefixStore }> = [];
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "stable-prefix-store-"));
    prefixDir = join(dir, "prefixes");
    engine = new SnapshotEngine(dir);
    key = (await prefixStoreKey(engine.info))!;
  });
  afterEach(async () => {
    for (const { pool, store } of open.splice(0)) {
      await pool.dispose();
      store.dispose();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** A pool as the provider makes one after a (re)start: a new store on the folder. */
  function startPool(): RequestPool {
    const store = new FilePrefixStore({ dir: prefixDir, key });
    const pool = new RequestPool(engine, { size: 2, prefixStore: store });
    open.push({ pool, store });
    return pool;
  }
  const render = (messages: readonly RequestMessage[]) => renderRequest({ chat: new ChatTemplate(engine.chatTemplate), stablePrefixFirst: true }, engine.tokenizer, messages);
  /** The tokens of every entry on disk. */
  const storedEntries = () => readdirSync(prefixDir).filter((f) => f.endsWith(".tokens")).map((f) => readFileSync(join(prefixDir, f)));

  async function ask(pool: RequestPool, messages: readonly RequestMessage[], progress?: Array<[number, number]>): Promise<{ reply: PoolReply; rendered: RenderedRequest }> {
    const rendered = render(messages);
    const got: number[] = [];
    const onPrefillProgress = progress && ((done: number, total: number) => progress.push([done, total]));
    const reply = await pool.serve({ tokens: rendered.tokens, stablePrefix: rendered.stablePrefix, maxTokens: 32, sampling: greedy, onPrefillProgress }, (t) => got.push(t));
    assert.deepEqual(got, await freshReply(engine, rendered.tokens), "served reply == a fresh prefill's reply");
    await pool.whenIdle();
    return { reply, rendered };
  }

  it("the stable prefix ends where the conversation's own log folder starts: before two conversations diverge", () => {
    const a = render(firstRequest("alpha"));
    const b = render(firstRequest("beta"));
    assert.equal(a.layout, "system-turn");
    const stable = a.stablePrefix!;
    assert.equal(b.stablePrefix, stable);
    assert.equal(engine.tokenizer.decode(a.tokens.slice(0, stable)), a.text.slice(0, a.text.indexOf("/debug-logs/alpha") + "/debug-logs/".length));
    assert.equal(commonTokenPrefix(a.tokens, b.tokens), stable, "the conversations part right there");
    assert.equal(render([{ role: "system", content: INSTRUCTIONS }, { role: "user", content: "hi" }]).stablePrefix, undefined, "no marker: no stable prefix");
  });

  it("a variables block whose log path lacks the debug-logs folder: the stable prefix ends where the block starts", () => {
    const messages = firstRequest("alpha").map((m, i) => (i === 0 ? { ...m, content: m.content.replace("/GitHub.copilot-chat/debug-logs/", "/logs/") } : m));
    const a = render(messages);
    assert.equal(engine.tokenizer.decode(a.tokens.slice(0, a.stablePrefix!)), a.text.slice(0, a.text.indexOf("The following template variables")));
  });

  it("a new conversation stores exactly its stable prefix; the next one and one after a restart load it", async () => {
    const pool = startPool();
    const progress: Array<[number, number]> = [];
    const a = await ask(pool, firstRequest("alpha"), progress);
    const stable = a.rendered.stablePrefix!;
    assert.ok(stable > 1024);
    assert.equal(a.reply.prefilled, a.rendered.tokens.length, "nothing stored yet: all prefilled");
    assert.deepEqual(storedEntries(), [tokenBytes(a.rendered.tokens.slice(0, stable))], "one entry: the stable prefix, not the conversation");
    // One prefill as far as progress goes: done rises to the total it ends on.
    assert.ok(progress.every(([done], i) => i === 0 || done >= progress[i - 1]![0]));
    const [lastDone, lastTotal] = progress.at(-1)!;
    assert.equal(lastDone, lastTotal);

    const b = await ask(pool, firstRequest("beta"));
    assert.ok(b.reply.cached >= stable, `second new conversation: cached ${b.reply.cached} >= ${stable}`);
    assert.equal(storedEntries().length, 1, "the same prefix is not stored twice");

    const c = await ask(startPool(), firstRequest("gamma"));
    assert.equal(c.reply.restored, "prefix");
    assert.equal(c.reply.restoredTokens, stable);
    assert.equal(c.reply.cached, stable, "after a restart: the stable prefix from disk");
    assert.equal(c.reply.prefilled, c.rendered.tokens.length - stable);
  });

  it("the skills block, once it appears in a follow-up, is stored with the prefix and loaded after a restart", async () => {
    const pool = startPool();
    const first = await ask(pool, firstRequest("alpha"));
    const followUp: RequestMessage[] = [...firstRequest("alpha", true), { role: "assistant", content: "Here they are." }, { role: "user", content: "Now fix the bug." }];
    const second = await ask(pool, followUp);
    const stable = second.rendered.stablePrefix!;
    assert.ok(stable >= first.rendered.stablePrefix! + PREFIX_BLOCK_TOKENS, "the skills block is part of what recurs");
    // Both stay: the first ends in the log path, which the one with skills does not hold.
    const entries = storedEntries();
    assert.equal(entries.length, 2);
    assert.ok(entries.some((e) => e.equals(tokenBytes(second.rendered.tokens.slice(0, stable)))));
    assert.ok(entries.some((e) => e.equals(tokenBytes(first.rendered.tokens.slice(0, first.rendered.stablePrefix!)))));

    const d = await ask(startPool(), firstRequest("delta", true));
    assert.equal(d.reply.restored, "prefix");
    assert.equal(d.reply.cached, stable, "after a restart: instructions, tools and skills from disk");
    // A window's first request before VS Code has loaded skills: the entry without them, log path and all.
    const e = await ask(startPool(), firstRequest("epsilon"));
    assert.equal(e.reply.cached, first.rendered.stablePrefix);
  });

  it("a stable prefix a few tokens longer than the stored one is stored too: the next conversation of that workspace loads all of it", async () => {
    const pool = startPool();
    const inWorkspace = (workspace: string, conversation: string) =>
      firstRequest(conversation).map((m, i) => (i === 0 ? { ...m, content: m.content.replace("/storage/ws1/", `/storage/${workspace}/`) } : m));
    const a = await ask(pool, inWorkspace("ws1", "alpha"));
    const b = await ask(pool, inWorkspace("ws2", "beta"));
    assert.ok(b.rendered.stablePrefix! - b.reply.cached < PREFIX_BLOCK_TOKENS && b.reply.cached < b.rendered.stablePrefix!, "the other workspace shares all but its log path");
    assert.equal(storedEntries().length, 2);
    const c = await ask(startPool(), inWorkspace("ws2", "gamma"));
    assert.equal(c.reply.cached, b.rendered.stablePrefix, "after a restart: the workspace's whole stable prefix from disk");
    assert.ok(c.reply.cached > a.rendered.stablePrefix! - PREFIX_BLOCK_TOKENS);
  });
});
