// The remote backend's state and server dialects against scripted local HTTP servers (the
// real llama-server runs in test/model/remote-server.test.ts): what is sent, how streamed
// ids become the reply, how busy servers, slow slots, dropped streams and cancels end, and
// the vLLM and SGLang shapes (written against their documentation; not exercised on a
// real server here).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { ServerDialect } from "../../src/extension/backends/remote/dialect";
import { ServerConnection } from "../../src/extension/backends/remote/http";
import { LlamaServerDialect, llamaServerSampling } from "../../src/extension/backends/remote/llama-server";
import { SglangDialect, VllmDialect } from "../../src/extension/backends/remote/openai-compatible";
import { serverBaseUrl } from "../../src/extension/backends/remote/options";
import { RemoteKvState } from "../../src/extension/backends/remote/remote-state";
import { retryDelayMs } from "../../src/extension/backends/remote/status";
import { checkTokenizer, probeText } from "../../src/extension/backends/remote/tokenizer-check";
import { parseChatArgs, UsageError } from "../../src/extension/cli/chat-args";
import type { ReplyRun, Tokenizer } from "../../src/extension/core/engine";
import { BACKEND_CHOICES, SERVER_KINDS } from "../../src/extension/core/engine-options";
import { ServerRejectedError, ServerUnreachableError, StatefulChatError, TokenizerMismatchError } from "../../src/extension/core/errors";
import type { ServerStatus } from "../../src/extension/core/server-status";
import { bannerActionsFor, marksMessageNotSent } from "../../src/extension/chats/error-actions";
import { crashNotice, lastFailedMessage } from "../../src/extension/shell/chat/panel-helpers";
import { parseToEngine } from "../../src/extension/engine-host/protocol";

/** One code point per token; 0 is the end token. */
const charTokenizer: Tokenizer = {
  encode: (text) => [...text].map((c) => c.codePointAt(0)!),
  decode: (tokens) => String.fromCodePoint(...tokens),
  isEndOfGeneration: (token) => token === 0,
  eosText: "\u0000",
};

type Handler = (req: IncomingMessage, body: Record<string, unknown>, res: ServerResponse) => void | Promise<void>;

const servers: Server[] = [];
after(() => servers.forEach((s) => s.close()));

async function scripted(handler: Handler): Promise<{ url: string; bodies: Array<Record<string, unknown>> }> {
  const bodies: Array<Record<string, unknown>> = [];
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    bodies.push({ path: req.url, ...body });
    await handler(req, body, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

function sse(res: ServerResponse, events: readonly unknown[], options: { end?: boolean } = {}): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  for (const event of events) res.write(`data: ${JSON.stringify(event)}\n\n`);
  if (options.end !== false) res.end();
}

const partial = (token: number, predicted: number, content = String.fromCodePoint(token)) => ({ content, tokens: [token], stop: false, id_slot: -1, tokens_predicted: predicted });
const final = (cached: number, slot = 2, stop = "eos") => ({ content: "", tokens: [], stop: true, id_slot: slot, stop_type: stop, timings: { cache_n: cached } });

function stateOn(dialect: ServerDialect, statuses: ServerStatus[] = [], capacity = 1000, onStatus?: (status: ServerStatus) => void): RemoteKvState {
  const listener = (s: ServerStatus) => {
    statuses.push(s);
    onStatus?.(s);
  };
  return new RemoteKvState({ dialect, tokenizer: charTokenizer, endToken: 0, retry: { baseDelayMs: 10, maxDelayMs: 20, maxWaitMs: 500 } }, capacity, listener, () => undefined);
}

function llama(url: string): LlamaServerDialect {
  return new LlamaServerDialect(new ServerConnection(serverBaseUrl(url), undefined), (text) => charTokenizer.encode(text, { specials: false }));
}

async function reply(state: RemoteKvState, input: number[], maxTokens: number): Promise<{ tokens: number[]; length: number; run: ReplyRun }> {
  const tokens: number[] = [];
  const run = state.generateReply(input, { sample: { temperature: 0 }, maxTokens }, (t) => tokens.push(t));
  return { tokens, length: await run.done, run };
}

describe("remote state on a scripted llama-server", () => {
  it("sends the whole ledger as ids with cache_prompt, the pinned slot and one token more than taken; the slot's count is the reply's serverCached", async () => {
    const { url, bodies } = await scripted((_req, body, res) => {
      const n = body.n_predict as number;
      // Ends at the token budget: the server sampled n tokens (it decoded n - 1 of them).
      sse(res, [...Array.from({ length: n }, (_, i) => partial(65 + i, i + 1)), final(bodies.length === 1 ? 0 : 7, 3, "limit")]);
    });
    const state = stateOn(llama(url));
    await state.evaluate([1, 2, 3]);
    assert.equal(bodies.length, 0, "prefill without sampling only records the tokens");
    const first = await reply(state, [4, 5], 3);
    assert.deepEqual(first.tokens, [65, 66, 67], "three taken, the fourth (sampled to make the server decode the third) dropped");
    assert.equal(first.length, 8, "the server decoded every taken token: the cache ends where the ledger will");
    assert.equal(first.run.serverCached?.(), 0);
    assert.equal(state.pinnedSlot, 3);
    const body = bodies[0];
    assert.deepEqual(body.prompt, [1, 2, 3, 4, 5]);
    assert.equal(body.n_predict, 4);
    assert.equal(body.cache_prompt, true);
    assert.equal(body.stream, true);
    assert.equal(body.return_tokens, true);
    assert.equal(body.id_slot, -1, "the server picks the first slot");
    assert.deepEqual(body.samplers, ["temperature"], "greedy");
    const second = await reply(state, [9], 2);
    assert.deepEqual(bodies[1].prompt, [1, 2, 3, 4, 5, 65, 66, 67, 9]);
    assert.equal(bodies[1].id_slot, 3, "then the slot that holds the conversation");
    assert.equal(second.run.serverCached?.(), 7);
  });

  it("an end token is streamed and not decoded: the cache holds the reply without it", async () => {
    const { url } = await scripted((_req, _body, res) => sse(res, [partial(72, 1), partial(105, 2), partial(0, 3, ""), final(0)]));
    const state = stateOn(llama(url));
    const run = await reply(state, [1, 2], 10);
    assert.deepEqual(run.tokens, [72, 105, 0]);
    assert.equal(run.length, 4, "input + 2 reply tokens");
  });

  it("tokens llama-server leaves out of its stream (a UTF-8 character split over tokens) are rebuilt from the next event's text", async () => {
    // "🚀" as three tokens whose first two were skipped: tokens_predicted jumps 1 -> 4.
    const { url } = await scripted((_req, _body, res) => sse(res, [partial(65, 1), partial(218, 4, "🚀x"), partial(0, 5, ""), final(0)]));
    const tokens: number[] = [];
    const state = stateOn(llama(url));
    const run = state.generateReply([1], { sample: { temperature: 0 }, maxTokens: 10 }, (t) => tokens.push(t));
    await run.done;
    assert.deepEqual(tokens, [65, 0x1f680, 120, 0], "the event's text, tokenized locally, stands for the skipped and the streamed token");
  });

  it("HTTP 503 then 429: the turn waits with backoff, says so, and runs", async () => {
    let calls = 0;
    const { url } = await scripted((_req, _body, res) => {
      calls++;
      if (calls === 1) void res.writeHead(503, { "content-type": "application/json" }).end('{"error":{"message":"Loading model"}}');
      else if (calls === 2) void res.writeHead(429, { "content-type": "application/json" }).end('{"error":{"message":"no free slot"}}');
      else sse(res, [partial(65, 1), partial(0, 2, ""), final(0)]);
    });
    const statuses: ServerStatus[] = [];
    const run = await reply(stateOn(llama(url), statuses), [1], 5);
    assert.deepEqual(run.tokens, [65, 0]);
    assert.deepEqual(statuses.map((s) => s.state), ["retrying", "retrying", "running"]);
    assert.deepEqual(statuses.slice(0, 2).map((s) => s.state === "retrying" && [s.attempt, s.reason]), [[1, "HTTP 503: Loading model"], [2, "HTTP 429: no free slot"]]);
  });

  it("a server that stays busy ends the turn with server_unreachable after the wait budget", async () => {
    const { url } = await scripted((_req, _body, res) => void res.writeHead(503).end("busy"));
    await assert.rejects(reply(stateOn(llama(url)), [1], 5), (error: unknown) => {
      assert.ok(error instanceof StatefulChatError);
      assert.equal(error.code, "server_unreachable");
      assert.match(error.message, /busy \(HTTP 503: busy\), and stayed busy for \d+ s/);
      return true;
    });
  });

  it("every slot busy (headers late): the turn shows as queued on the server, then running", { timeout: 30_000 }, async () => {
    // The server holds its answer until the turn has shown as queued: event order, not a race
    // between the server's delay and the state's threshold.
    let shownQueued!: () => void;
    const queued = new Promise<void>((resolve) => (shownQueued = resolve));
    const { url } = await scripted(async (_req, _body, res) => {
      await queued;
      sse(res, [partial(65, 1), partial(0, 2, ""), final(0)]);
    });
    const statuses: ServerStatus[] = [];
    const run = await reply(stateOn(llama(url), statuses, 1000, (s) => s.state === "queued" && shownQueued()), [1], 5);
    assert.deepEqual(run.tokens, [65, 0]);
    assert.deepEqual(statuses.map((s) => s.state), ["queued", "running"]);
  });

  it("a stream that drops mid-reply: server_unreachable, tokens seen so far delivered, the state emptied (the next reply re-sends everything)", async () => {
    const { url, bodies } = await scripted((req, _body, res) => {
      if (bodies.length === 1) {
        sse(res, [partial(65, 1), partial(66, 2)], { end: false });
        setTimeout(() => req.socket.destroy(), 50);
      } else sse(res, [partial(67, 1), partial(0, 2, ""), final(0)]);
    });
    const state = stateOn(llama(url));
    await state.evaluate([1, 2]);
    const tokens: number[] = [];
    const run = state.generateReply([3], { sample: { temperature: 0 }, maxTokens: 10 }, (t) => tokens.push(t));
    await assert.rejects(run.done, (error: unknown) => error instanceof StatefulChatError && error.code === "server_unreachable" && /broke during the reply/.test(error.message));
    assert.deepEqual(tokens, [65, 66]);
    assert.equal(state.length, 0, "nothing assumed cached any more");
    await state.evaluate([1, 2, 3]);
    await reply(state, [4], 5);
    assert.deepEqual(bodies[1].prompt, [1, 2, 3, 4]);
  });

  it("cancel mid-reply aborts the request; cancel after the end token waits for the final event (its cache count)", async () => {
    const { url } = await scripted((req, body, res) => {
      if ((body.prompt as number[]).length === 1) {
        sse(res, [partial(65, 1)], { end: false });
        req.socket.on("close", () => undefined);
      } else {
        sse(res, [partial(65, 1), partial(0, 2, "")], { end: false });
        setTimeout(() => res.end(`data: ${JSON.stringify(final(5))}\n\n`), 100);
      }
    });
    const state = stateOn(llama(url));
    const seen: number[] = [];
    const run: ReplyRun = state.generateReply([1], { sample: { temperature: 0 }, maxTokens: 10 }, (t) => {
      seen.push(t);
      run.cancel();
    });
    assert.equal(await run.done, 1, "the input only: the one sampled token was not decoded");
    assert.deepEqual(seen, [65]);
    const second = state.generateReply([2], { sample: { temperature: 0 }, maxTokens: 10 }, (t) => {
      if (t === 0) second.cancel();
    });
    await second.done;
    assert.equal(second.serverCached?.(), 5, "the server's count arrived after the end token");
  });

  it("refuses a reply that could pass capacity before sending anything", async () => {
    const { url, bodies } = await scripted((_req, _body, res) => void res.end());
    const state = stateOn(llama(url), [], 10);
    await state.evaluate([1, 2, 3, 4, 5, 6]);
    await assert.rejects(reply(state, [7, 8], 5), (error: unknown) => error instanceof StatefulChatError && error.code === "capacity_exceeded");
    assert.equal(bodies.length, 0);
  });

  it("one call at a time (the busy guard every state shares): a call while a reply streams is refused, and every call after dispose", async () => {
    let release: (() => void) | undefined;
    const { url } = await scripted(async (_req, _body, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify({ tokens: [65], content: "A", stop: false })}\n\n`);
      await new Promise<void>((resolve) => (release = resolve));
      res.end(`data: ${JSON.stringify({ tokens: [0], content: "", stop: true, stop_type: "eos", timings: { cache_n: 0 } })}\n\n`);
    });
    const state = stateOn(llama(url));
    const first = reply(state, [1, 2], 4);
    while (!release) await new Promise((resolve) => setTimeout(resolve, 5));
    await assert.rejects(state.truncate(0), (error: unknown) => error instanceof StatefulChatError && error.code === "concurrent_access");
    release();
    await first;
    await state.truncate(1);
    await state.dispose();
    await assert.rejects(state.reset(), (error: unknown) => error instanceof StatefulChatError && error.code === "disposed");
  });

  it("sampling options map to llama-server's chain: top-k, top-p, temperature, nothing else", () => {
    assert.deepEqual(llamaServerSampling({ temperature: 0.7, topK: 40, topP: 0.9, seed: 3 }).samplers, ["top_k", "top_p", "temperature"]);
    const greedy = llamaServerSampling({ temperature: 0 });
    assert.equal(greedy.repeat_penalty, 1);
    assert.equal(greedy.min_p, 0);
    assert.equal(greedy.seed, undefined);
  });
});

describe("tokenizer check", () => {
  const dialect = (answer: (text: string, specials: boolean) => number[] | undefined): ServerDialect => ({
    kind: "llama-server",
    describe: async () => ({ kind: "llama-server", model: "m.gguf" }),
    tokenize: async (text, specials) => answer(text, specials),
    complete: async () => ({}),
  });
  const info = { kind: "llama-server" as const, model: "m.gguf" };

  it("passes when the server tokenizes the probe (special tokens, non-ASCII) as we do, with and without parsing specials", async () => {
    const result = await checkTokenizer(dialect((t) => charTokenizer.encode(t, { specials: true })), info, charTokenizer, "local.gguf");
    assert.deepEqual(result.checked, ["specials", "text"]);
    assert.match(probeText(charTokenizer), /東京 🚀/);
  });

  it("refuses with tokenizer_mismatch at the first differing token", async () => {
    const off = dialect((t) => charTokenizer.encode(t, { specials: true }).map((id, i) => (i === 7 ? id + 1 : id)));
    await assert.rejects(checkTokenizer(off, info, charTokenizer, "local.gguf"), (error: unknown) => {
      assert.ok(error instanceof StatefulChatError);
      assert.equal(error.code, "tokenizer_mismatch");
      assert.match(error.message, /from token 7 on/);
      return true;
    });
  });

  it("a server with no way to tokenize is refused rather than trusted", async () => {
    await assert.rejects(checkTokenizer(dialect(() => undefined), info, charTokenizer, "local.gguf"), /no way to check its tokenizer/);
  });
});

describe("vLLM and SGLang dialects (documented shapes; not exercised on a real server here)", () => {
  it("vLLM: /v1/completions with token ids, token_ids streamed, usage.cached_tokens; an unstreamed EOS stands as the end token", async () => {
    const { url, bodies } = await scripted((req, _body, res) => {
      if (req.url === "/v1/models") return void res.writeHead(200, { "content-type": "application/json" }).end('{"data":[{"id":"Qwen/Qwen2.5-Coder-7B-Instruct","owned_by":"vllm","max_model_len":32768}]}');
      sse(res, [
        { choices: [{ index: 0, text: "A", token_ids: [65], finish_reason: null }] },
        { choices: [{ index: 0, text: "B", logprobs: { tokens: ["token_id:66"] }, finish_reason: "stop" }] },
        { choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 2 } } },
      ], { end: false });
      res.end("data: [DONE]\n\n");
    });
    const vllm = new VllmDialect(new ServerConnection(serverBaseUrl(url), undefined));
    const described = await vllm.describe();
    assert.deepEqual(described, { kind: "vllm", model: "Qwen/Qwen2.5-Coder-7B-Instruct", contextPerSlot: 32768 });
    const state = stateOn(vllm);
    const run = await reply(state, [1, 2, 3], 10);
    assert.deepEqual(run.tokens, [65, 66, 0]);
    assert.equal(run.run.serverCached?.(), 2);
    const body = bodies.at(-1)!;
    assert.deepEqual(body.prompt, [1, 2, 3]);
    assert.equal(body.model, "Qwen/Qwen2.5-Coder-7B-Instruct");
    assert.equal(body.return_token_ids, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.equal(body.max_tokens, 11);
  });

  it("SGLang: /generate with input_ids; cumulative output_ids; meta_info.cached_tokens", async () => {
    const { url, bodies } = await scripted((_req, _body, res) => {
      sse(res, [
        { text: "A", output_ids: [65], meta_info: { completion_tokens: 1, cached_tokens: 4 } },
        { text: "AB", output_ids: [65, 66], meta_info: { completion_tokens: 2, cached_tokens: 4, finish_reason: { type: "length" } } },
      ], { end: false });
      res.end("data: [DONE]\n\n");
    });
    const state = stateOn(new SglangDialect(new ServerConnection(serverBaseUrl(url), undefined)));
    const run = await reply(state, [1, 2], 1);
    assert.deepEqual(run.tokens, [65], "one taken; the second was the one more asked for");
    assert.equal(run.length, 3, "the server went on past the taken token, so it decoded it");
    assert.equal(run.run.serverCached?.(), 4);
    assert.deepEqual(bodies[0].input_ids, [1, 2]);
    assert.equal((bodies[0].sampling_params as { max_new_tokens: number }).max_new_tokens, 2);
  });
});

describe("remote backend configuration", () => {
  it("one list of backends and server kinds, the same in package.json", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as {
      contributes: { configuration: { properties: Record<string, { enum?: string[] }> } };
    };
    const properties = pkg.contributes.configuration.properties;
    assert.deepEqual([...properties["statefulChat.backend"].enum!].sort(), [...BACKEND_CHOICES].sort());
    assert.deepEqual(properties["statefulChat.server.kind"].enum, [...SERVER_KINDS]);
    assert.ok(BACKEND_CHOICES.includes("remote"));
  });

  it("engine-host load requests: remote needs a server URL; others must not carry one", () => {
    const load = (l: Record<string, unknown>) => parseToEngine({ id: 1, request: { op: "load", load: l } });
    assert.ok(load({ modelPath: "m.gguf", backend: "remote", server: { url: "http://gpu:8080", kind: "llama-server" } }));
    assert.equal(load({ modelPath: "m.gguf", backend: "remote" }), undefined);
    assert.equal(load({ modelPath: "m.gguf", backend: "remote", server: { url: "file:///etc/passwd" } }), undefined);
    assert.equal(load({ modelPath: "m.gguf", backend: "remote", server: { url: "http://x", kind: "ollama" } }), undefined);
    assert.equal(load({ modelPath: "m.gguf", backend: "llamacpp", server: { url: "http://x" } }), undefined);
    assert.ok(load({ modelPath: "m.gguf", backend: "llamacpp" }));
  });

  it("CLI: --backend remote --server URL [--server-kind]; --server alone is a usage error", () => {
    const args = parseChatArgs(["--backend", "remote", "--server", "http://gpu:8080", "--server-kind", "vllm"]);
    assert.equal(args.backend, "remote");
    assert.equal(args.server, "http://gpu:8080");
    assert.equal(args.serverKind, "vllm");
    assert.equal(parseChatArgs([]).serverKind, "auto");
    assert.throws(() => parseChatArgs(["--backend", "remote"]), UsageError);
    assert.throws(() => parseChatArgs(["--backend", "remote", "--server", "gpu:8080"]), /http:\/\/ or https:\/\//);
    assert.throws(() => parseChatArgs(["--server", "http://gpu:8080"]), /go with --backend remote/);
    assert.throws(() => parseChatArgs(["--backend", "remote", "--server", "http://x", "--server-kind", "tgi"]), /--server-kind must be one of/);
  });

  it("backoff: exponential with jitter, capped; Retry-After wins", () => {
    const policy = { baseDelayMs: 500, maxDelayMs: 8000, maxWaitMs: 120_000 };
    assert.equal(retryDelayMs(policy, 1, undefined, () => 0.5), 500);
    assert.equal(retryDelayMs(policy, 3, undefined, () => 0.5), 2000);
    assert.equal(retryDelayMs(policy, 10, undefined, () => 0.5), 8000);
    assert.equal(retryDelayMs(policy, 1, 3000), 3000);
    assert.equal(retryDelayMs(policy, 1, 60_000), 8000);
  });

  it("the panel: a server fault offers Retry and keeps a notice under the cut-off reply; a refusal offers the API key and settings", () => {
    const fault = new ServerUnreachableError("The connection to the inference server broke during the reply.");
    assert.deepEqual(bannerActionsFor(fault).map((a) => a.command), ["statefulChat.retry"]);
    assert.equal(crashNotice(fault), "server_unreachable: The connection to the inference server broke during the reply.");
    assert.equal(marksMessageNotSent(fault), false, "the model read the message: the partial reply stays");
    const entries = [
      { id: "1", role: "user" as const, text: "Write a poem", status: "complete" as const },
      { id: "2", role: "assistant" as const, text: "The sea", status: "error" as const },
    ];
    assert.equal(lastFailedMessage(entries), "Write a poem", "Retry sends the message again");
    assert.deepEqual(bannerActionsFor(new ServerRejectedError("HTTP 401", 401)).map((a) => a.command), ["statefulChat.setServerApiKey", "statefulChat.retry", "statefulChat.openSettings"]);
    assert.equal(marksMessageNotSent(new TokenizerMismatchError("differs")), true);
    assert.deepEqual(bannerActionsFor(new TokenizerMismatchError("differs")).map((a) => a.command), ["statefulChat.selectModel", "statefulChat.openSettings"]);
  });
});
