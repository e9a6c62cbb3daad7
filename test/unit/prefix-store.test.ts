// The prefix store (core/request-pool/file-prefix-store.ts) in a real folder, on an engine test
// double whose states save their cache as files and whose next token hashes the whole cached
// sequence (a cache that is not exactly the request's changes the reply). A new conversation
// after a restart (a new pool on the same folder) starts from the stored prefix and prefills
// only its tail, with the reply of a fresh prefill; another model or context size never uses
// an entry; damaged or mismatched files are refused and deleted, the request prefilled; the
// one KV disk budget evicts the least recently used entry, never one being loaded.

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { ChatTemplate } from "../../src/extension/core/chat-template";
import { FilePrefixStore } from "../../src/extension/core/request-pool/file-prefix-store";
import { PREFIX_BLOCK_TOKENS, tokenBytes } from "../../src/extension/core/request-pool/prefix-blocks";
import { renderRequest } from "../../src/extension/core/request-pool/request-messages";
import { type RequestMessage } from "../../src/extension/core/request-pool/request-shape";
import { RequestPool, type PoolReply } from "../../src/extension/core/request-pool/request-pool";
import { commonTokenPrefix } from "../../src/extension/core/request-pool/token-prefix";
import { Session } from "../../src/extension/core/session";
import { KvFolderBudget } from "../../src/extension/snapshots/kv-disk-budget";
import { prefixStoreKey } from "../../src/extension/snapshots/prefix-key";
import { HashState } from "../support/fake-engine";
import { SnapshotEngine } from "../support/snapshot-engine";
import { deferred } from "../support/deferred";

const greedy = { temperature: 0 };
/** ~1,700 byte tokens of instructions every conversation starts with (agent mode's are ~15k). */
const INSTRUCTIONS = "You are a careful assistant; follow the tool rules. ".repeat(33);

async function freshReply(engine: SnapshotEngine, tokens: readonly number[]): Promise<number[]> {
  const session = new Session(new HashState(engine.capacity, 12), engine.tokenizer, 128);
  await session.prefill(tokens);
  const out: number[] = [];
  for await (const token of session.generate({ maxTokens: 32, sampling: greedy })) out.push(token);
  return out;
}

/** A new conversation's first request, served and checked against a fresh prefill's reply. */
async function ask(engine: SnapshotEngine, pool: RequestPool, question: string, system = INSTRUCTIONS): Promise<{ reply: PoolReply; tokens: number[] }> {
  const messages: RequestMessage[] = [{ role: "system", content: system }, { role: "user", content: question }];
  const { tokens } = renderRequest(new ChatTemplate(engine.chatTemplate), engine.tokenizer, messages);
  const got: number[] = [];
  const reply = await pool.serve({ tokens, maxTokens: 32, sampling: greedy }, (t) => got.push(t));
  assert.deepEqual(got, await freshReply(engine, tokens), "served reply == a fresh prefill's reply");
  await pool.whenIdle(); // The prompt is stored behind the reply.
  return { reply, tokens };
}


describe("prefix store", () => {
  let dir: string;
  let prefixDir: string;
  let engine: SnapshotEngine;
  let key: string;
  const open: Array<{ pool: RequestPool; store: FilePrefixStore }> = [];
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "prefix-store-"));
    prefixDir = join(dir, "pool", "model-a", "prefixes");
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
  function startPool(options: { key?: string; budget?: KvFolderBudget; size?: number } = {}): { pool: RequestPool; store: FilePrefixStore } {
    const store = new FilePrefixStore({ dir: prefixDir, key: options.key ?? key, budget: options.budget });
    const pool = new RequestPool(engine, { size: options.size ?? 2, prefixStore: store });
    open.push({ pool, store });
    return { pool, store };
  }
  const entryIds = () => [...new Set(readdirSync(prefixDir).filter((f) => f.startsWith("prefix-")).map((f) => f.split(".")[0]))].sort();
  const filesOf = (id: string) => ({ cache: join(prefixDir, `${id}.kv`), tokens: join(prefixDir, `${id}.tokens`), meta: join(prefixDir, `${id}.json`) });

  it("keys: the same engine has one key; another model file or context size another; a remote server none", async () => {
    assert.equal(await prefixStoreKey(engine.info), key);
    assert.notEqual(await prefixStoreKey({ ...engine.info, capacity: 2048 }), key);
    writeFileSync(engine.info.modelPath, "another model file, same path");
    assert.notEqual(await prefixStoreKey(engine.info), key);
    assert.equal(await prefixStoreKey({ ...engine.info, backend: "remote" }), undefined);
    assert.equal(await prefixStoreKey({ ...engine.info, modelPath: join(dir, "missing.gguf") }), undefined);
  });

  it("after a restart a new conversation loads the stored prefix and prefills only its tail, with the same reply", async () => {
    const first = startPool();
    const a = await ask(engine, first.pool, "alpha: list the files");
    assert.equal(a.reply.restored, undefined);
    assert.equal(a.reply.prefilled, a.tokens.length, "nothing stored yet: all prefilled");
    assert.equal(entryIds().length, 1, "the long prompt was stored after the reply");

    const restarted = startPool();
    const b = await ask(engine, restarted.pool, "beta: fix the bug");
    const shared = commonTokenPrefix(a.tokens, b.tokens);
    assert.ok(shared > 1024 && shared % PREFIX_BLOCK_TOKENS !== 0, `shared ${shared}: whole blocks and a partial one`);
    assert.equal(b.reply.restored, "prefix");
    assert.equal(b.reply.restoredTokens, shared, "cut back to exactly the common prefix");
    assert.equal(b.reply.cached, shared);
    assert.equal(b.reply.prefilled, b.tokens.length - shared, "only the tail prefilled");
    assert.equal(b.reply.rewound, 0, "the stored entry's own tail is not a rewind of this conversation");
    assert.equal(entryIds().length, 1, "its tail is short: nothing new stored");

    // A third new conversation while beta's session is live.
    const c = await ask(engine, restarted.pool, "gamma: explain");
    assert.equal(c.reply.cached, commonTokenPrefix(b.tokens, c.tokens), "from beta's live session, which holds as much as the store");
  });

  it("a short prompt is never stored and a short shared prefix never loaded", async () => {
    const { pool } = startPool();
    await ask(engine, pool, "hi", "Be brief.");
    assert.equal(existsSync(prefixDir), false, "a short prompt: nothing stored");
    await ask(engine, pool, "alpha", INSTRUCTIONS);
    const { pool: other } = startPool();
    const b = await ask(engine, other, "beta", `${INSTRUCTIONS.slice(0, 600)} and something else entirely`);
    assert.equal(b.reply.restored, undefined, "600 shared tokens: under the minimum, prefilled");
    assert.equal(b.reply.cached, 0);
  });

  it("an entry made with another model file, or another context size, is never used (and stays for it)", async () => {
    const { pool } = startPool();
    await ask(engine, pool, "alpha");
    const [stored] = entryIds();
    writeFileSync(engine.info.modelPath, "the model file was replaced in place");
    const otherModel = (await prefixStoreKey(engine.info))!;
    const b = await ask(engine, startPool({ key: otherModel }).pool, "beta");
    assert.equal(b.reply.restored, undefined);
    assert.equal(b.reply.cached, 0, "re-prefilled");
    const otherContext = (await prefixStoreKey({ ...engine.info, capacity: 2048 }))!;
    const c = await ask(engine, startPool({ key: otherContext }).pool, "gamma");
    assert.equal(c.reply.cached, 0);
    assert.ok(entryIds().includes(stored!), "the other key's entry is kept for it");
  });

  describe("a damaged or mismatched entry is refused and deleted; the request is prefilled", () => {
    const damages: Array<[string, (files: ReturnType<typeof filesOf>) => void]> = [
      ["a token changed in its token list", (f) => {
        const bytes = readFileSync(f.tokens);
        bytes.writeUInt32LE(bytes.readUInt32LE(400) + 1, 400);
        writeFileSync(f.tokens, bytes);
      }],
      ["a truncated token list", (f) => writeFileSync(f.tokens, readFileSync(f.tokens).subarray(0, 1000))],
      ["a truncated cache file", (f) => writeFileSync(f.cache, readFileSync(f.cache).subarray(0, 100))],
      ["a cache file of other tokens (its size written into the description)", (f) => {
        const cache = JSON.parse(readFileSync(f.cache, "utf8")) as { tokens: number[]; cache: number[] };
        cache.tokens[500] = cache.cache[500] = 65;
        writeFileSync(f.cache, JSON.stringify(cache));
        const meta = JSON.parse(readFileSync(f.meta, "utf8"));
        meta.cacheBytes = statSync(f.cache).size;
        writeFileSync(f.meta, JSON.stringify(meta));
      }],
      ["a cache file the backend cannot read", (f) => {
        const size = statSync(f.cache).size;
        writeFileSync(f.cache, "x".repeat(size));
      }],
      ["an unreadable description", (f) => writeFileSync(f.meta, "{ not json")],
      ["a description whose hash is not its name's", (f) => {
        const meta = JSON.parse(readFileSync(f.meta, "utf8"));
        meta.tokensSha256 = "0".repeat(64);
        writeFileSync(f.meta, JSON.stringify(meta));
      }],
    ];
    for (const [what, damage] of damages) {
      it(what, async () => {
        await ask(engine, startPool().pool, "alpha");
        const [id] = entryIds();
        damage(filesOf(id!));
        const b = await ask(engine, startPool().pool, "beta");
        assert.equal(b.reply.restored, undefined);
        assert.equal(b.reply.cached, 0, "prefilled from the start");
        assert.equal(b.reply.prefilled, b.tokens.length);
        assert.ok(!entryIds().includes(id!), "the damaged entry was deleted");
        assert.equal(entryIds().length, 1, "beta's prompt was stored in its place");
      });
    }
  });

  it("the longest stored prefix wins (blocks by hash, then token by token); the same prefix is stored once and a covered one dropped", async () => {
    const store = new FilePrefixStore({ dir: prefixDir, key });
    const write = (label: string) => async (path: string) => {
      await writeFile(path, label);
      return label.length;
    };
    const base = Array.from({ length: 700 }, (_, i) => i % 200);
    const x = [...base, ...new Array(600).fill(1)];
    const y = [...base, ...new Array(900).fill(2)];
    assert.equal(await store.save(x, write("x")), true);
    assert.equal(await store.save(y, write("y")), true);
    assert.equal(await store.save(y, write("y again")), false, "the same tokens: one entry");
    assert.equal(entryIds().length, 2);

    const request = [...base, ...new Array(850).fill(2), 7, 7];
    let handed: readonly number[] = [];
    const hit = await store.restore(request, 1024, async (found) => {
      handed = found.tokens;
      return readFileSync(found.cachePath, "utf8") === "y";
    });
    assert.equal(hit?.shared, 1550, "y shares 700 + 850 tokens, 6 whole blocks and part of the next");
    assert.deepEqual(handed, y, "the entry's whole token list is handed over, to be cut back after loading");
    assert.equal(await store.shared([...base, 1, 1, 1]), 703);
    assert.equal(await store.restore([...base, 1, 1, 1], 1024, async () => true), undefined, "703 shared: under the minimum");

    // x + more covers x: x is dropped when it is stored.
    assert.equal(await store.save([...x, 3, 3, 3], write("x longer")), true);
    assert.equal(entryIds().length, 2, "x was dropped for the entry that holds all of it");
    assert.equal(await store.shared(x), x.length);
    store.dispose();

    // A new store on the folder (a restart) finds them by their descriptions.
    const reopened = new FilePrefixStore({ dir: prefixDir, key });
    assert.equal(await reopened.shared(request), 1550);
    reopened.dispose();
  });

  it("keeps at most maxEntries, dropping the least recently used", async () => {
    let clock = 0;
    const store = new FilePrefixStore({ dir: prefixDir, key, maxEntries: 2, now: () => ++clock * 1000 });
    const write = async (path: string) => {
      await writeFile(path, "cache");
      return 5;
    };
    const list = (n: number) => Array.from({ length: 600 }, () => n);
    await store.save(list(1), write);
    await store.save(list(2), write);
    assert.ok(await store.restore(list(1), 512, async () => true), "1 is used now");
    await store.save(list(3), write);
    assert.equal(await store.shared(list(2)), 0, "2, the least recently used, was dropped");
    assert.equal(await store.shared(list(1)), 600);
    assert.equal(await store.shared(list(3)), 600);
    store.dispose();
  });

  it("the one KV disk budget evicts the least recently used entry, never one being loaded, and at 0 bytes none is written", async () => {
    let budgetBytes = 1e9;
    const budget = new KvFolderBudget([join(dir, "pool")], () => budgetBytes);
    const { pool } = startPool({ budget });
    await ask(engine, pool, "alpha", INSTRUCTIONS);
    const [first] = entryIds();
    await ask(engine, pool, "question", `Other instructions entirely. ${INSTRUCTIONS}`);
    const second = entryIds().find((id) => id !== first)!;
    for (const f of Object.values(filesOf(first!))) utimesSync(f, 1_000, 1_000);
    for (const f of Object.values(filesOf(second))) utimesSync(f, 2_000, 2_000);

    // The first is used by a new conversation after a restart: now the second is the least recently used.
    const restarted = startPool({ budget });
    const again = await ask(engine, restarted.pool, "alpha again", INSTRUCTIONS);
    assert.equal(again.reply.restored, "prefix");
    const oneEntry = Object.values(filesOf(first!)).reduce((sum, f) => sum + statSync(f).size, 0);
    budgetBytes = oneEntry;
    await budget.enforce();
    assert.deepEqual(entryIds(), [first], "the least recently used went, through its store");
    budgetBytes = 1e9;
    const lost = await ask(engine, startPool({ budget }).pool, "question two", `Other instructions entirely. ${INSTRUCTIONS}`);
    assert.equal(lost.reply.restored, undefined, "its prefix is prefilled again");

    // An entry being loaded is pinned: a budget of 1 byte evicts everything else first, not it.
    for (const id of entryIds()) for (const f of Object.values(filesOf(id))) utimesSync(f, 1_000, 1_000);
    const loading = deferred();
    const gate = deferred();
    engine.beforeLoad = async () => {
      loading.resolve();
      await gate.promise;
    };
    const beingLoaded = ask(engine, startPool({ budget }).pool, "alpha, third time", INSTRUCTIONS);
    await loading.promise;
    budgetBytes = 1;
    await budget.enforce();
    assert.deepEqual(entryIds(), [first], "only the entry being loaded is left");
    gate.resolve();
    assert.equal((await beingLoaded).reply.restored, "prefix", "and it was loaded");
    engine.beforeLoad = undefined;

    budgetBytes = 0;
    rmSync(prefixDir, { recursive: true, force: true });
    await ask(engine, startPool({ budget }).pool, "delta", INSTRUCTIONS);
    assert.equal(existsSync(prefixDir), false, "a budget of 0 stores nothing");
  });

  it("a stored prefix wins over taking over a live session that shares less", async () => {
    await ask(engine, startPool().pool, "alpha");
    const { pool } = startPool({ size: 1 });
    // A live conversation that shares only the opening of the instructions.
    await ask(engine, pool, "other", `${INSTRUCTIONS.slice(0, 300)} then different rules`);
    const b = await ask(engine, pool, "beta");
    assert.equal(b.reply.restored, "prefix");
    assert.ok(b.reply.restoredTokens! > 1024);
  });

  it("the store's token lists hold the tokens as uint32 little-endian", () => {
    assert.deepEqual([...tokenBytes([1, 256, 70000])], [1, 0, 0, 0, 0, 1, 0, 0, 112, 17, 1, 0]);
  });
});
