// The remote backend's waits end on a Stop, and none lasts forever (invariants 6 and 8): the
// busy-retry sleep, a completion queued on the server (no response headers) and a stream gone
// silent mid-reply. Against a scripted local HTTP server, with a clock the test advances by
// hand: assertions follow events (the request arrived, a wait began), never wall time.

import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";
import type { RemoteClock } from "../../src/extension/backends/remote/completion-waits";
import { ServerConnection } from "../../src/extension/backends/remote/http";
import { LlamaServerDialect } from "../../src/extension/backends/remote/llama-server";
import { serverBaseUrl } from "../../src/extension/backends/remote/options";
import { RemoteKvState } from "../../src/extension/backends/remote/remote-state";
import type { ServerStatus } from "../../src/extension/core/server-status";
import type { Tokenizer } from "../../src/extension/core/engine";
import { CancelledError, StatefulChatError } from "../../src/extension/core/errors";
import { Session } from "../../src/extension/core/session";

/** One code point per token; 0 is the end token. */
const charTokenizer: Tokenizer = {
  encode: (text) => [...text].map((c) => c.codePointAt(0)!),
  decode: (tokens) => String.fromCodePoint(...tokens),
  isEndOfGeneration: (token) => token === 0,
  eosText: "\u0000",
};

/** A clock the test moves: timers fire and sleeps end only when it says so (a sleep ends early on its signal). */
class ManualClock implements RemoteClock {
  private now = 0;
  private timers: Array<{ at: number; fire: () => void }> = [];
  sleeps: number[] = [];
  private sleepStarted: (() => void) | undefined;

  after(ms: number, fire: () => void): () => void {
    const timer = { at: this.now + ms, fire };
    this.timers.push(timer);
    return () => (this.timers = this.timers.filter((t) => t !== timer));
  }

  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      this.sleeps.push(ms);
      const fail = () => reject(new CancelledError());
      if (signal?.aborted) return fail();
      signal?.addEventListener("abort", fail, { once: true });
      this.after(ms, resolve);
      this.sleepStarted?.();
    });

  /** Resolves when the next sleep begins. */
  nextSleep(): Promise<void> {
    return new Promise((resolve) => (this.sleepStarted = resolve));
  }

  advance(ms: number): void {
    this.now += ms;
    const due = this.timers.filter((t) => t.at <= this.now);
    this.timers = this.timers.filter((t) => t.at > this.now);
    for (const timer of due) timer.fire();
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const servers: Server[] = [];
after(() => servers.forEach((s) => (s.closeAllConnections(), s.close())));

/** A scripted server; `arrived()` resolves when the next request has fully arrived. */
async function scripted(handler: Handler): Promise<{ url: string; arrived: () => Promise<void> }> {
  const waiting: Array<() => void> = [];
  const server = createServer(async (req, res) => {
    for await (const _ of req) void _;
    handler(req, res);
    waiting.splice(0).forEach((resolve) => resolve());
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived: () => new Promise<void>((resolve) => waiting.push(resolve)),
  };
}

const partial = (token: number, predicted: number) => ({ content: String.fromCodePoint(token), tokens: [token], stop: false, id_slot: -1, tokens_predicted: predicted });

function sessionOn(url: string, clock: ManualClock, statuses: ServerStatus[] = []): { session: Session; state: RemoteKvState } {
  const dialect = new LlamaServerDialect(new ServerConnection(serverBaseUrl(url), undefined), (text) => charTokenizer.encode(text, { specials: false }));
  const state = new RemoteKvState(
    { dialect, tokenizer: charTokenizer, endToken: 0, retry: { baseDelayMs: 1_000, maxDelayMs: 8_000, maxWaitMs: 120_000 }, timeouts: { queuedMs: 60_000, silentMs: 90_000 }, clock },
    1000,
    (s) => statuses.push(s),
    () => undefined,
  );
  return { session: new Session(state, charTokenizer, 16), state };
}

async function generateAll(session: Session, signal?: AbortSignal): Promise<number[]> {
  const out: number[] = [];
  for await (const token of session.generate({ maxTokens: 20, sampling: { temperature: 0 } }, signal)) out.push(token);
  return out;
}

// A wait that does not end fails the test at its timeout (a hang is the defect, not a slow pass).
const hangGuard = { timeout: 10_000 };

describe("remote backend: Stop and timeouts", () => {
  it("Stop during a busy server's retry wait ends the turn at once, as stopped, the ledger as it was", hangGuard, async () => {
    const { url } = await scripted((_req, res) => void res.writeHead(503).end("Loading model"));
    const clock = new ManualClock();
    const statuses: ServerStatus[] = [];
    const { session } = sessionOn(url, clock, statuses);
    await session.prefill([1, 2, 3]);
    const stop = new AbortController();
    const sleeping = clock.nextSleep();
    const reply = generateAll(session, stop.signal);
    await sleeping;
    assert.equal(statuses.at(-1)?.state, "retrying");
    stop.abort();
    assert.deepEqual(await reply, []);
    assert.equal(session.lastStopReason, "cancelled");
    assert.deepEqual([...session.tokens], [1, 2, 3]);
    assert.equal(clock.sleeps.length, 1, "no retry after the Stop");
  });

  it("a completion the server never starts on (queued) ends with server_unreachable once the queue timeout passes", hangGuard, async () => {
    const { url, arrived } = await scripted(() => undefined); // never answers
    const clock = new ManualClock();
    const { session, state } = sessionOn(url, clock);
    await session.prefill([1, 2, 3]);
    const request = arrived();
    const reply = generateAll(session);
    await request;
    clock.advance(60_000);
    await assert.rejects(reply, (error: unknown) => error instanceof StatefulChatError && error.code === "server_unreachable" && /did not start on the reply within 60 s/.test(error.message));
    assert.equal(state.length, 0, "the server may have lost the cache: the next request re-sends the ledger");
    assert.deepEqual([...session.tokens], [1, 2, 3]);
  });

  it("a stream gone silent mid-reply ends with server_unreachable after the silence timeout; the tokens that came are kept", hangGuard, async () => {
    const { url, arrived } = await scripted((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify(partial(65, 1))}\n\n`);
      res.write(`data: ${JSON.stringify(partial(66, 2))}\n\n`); // then nothing, the connection open
    });
    const clock = new ManualClock();
    const { session } = sessionOn(url, clock);
    await session.prefill([1, 2, 3]);
    const request = arrived();
    const got: number[] = [];
    const reply = (async () => {
      for await (const token of session.generate({ maxTokens: 20, sampling: { temperature: 0 } })) got.push(token);
    })();
    await request;
    while (got.length < 2) await new Promise((resolve) => setImmediate(resolve));
    clock.advance(89_999);
    assert.equal(got.length, 2);
    clock.advance(1);
    await assert.rejects(reply, (error: unknown) => error instanceof StatefulChatError && error.code === "server_unreachable" && /sent nothing for 90 s/.test(error.message));
    assert.deepEqual(got, [65, 66]);
  });

  it("Stop while queued on the server ends the turn as stopped and aborts the request", hangGuard, async () => {
    let closed!: () => void;
    const requestClosed = new Promise<void>((resolve) => (closed = resolve));
    const { url, arrived } = await scripted((req) => req.socket.on("close", () => closed()));
    const clock = new ManualClock();
    const { session } = sessionOn(url, clock);
    await session.prefill([1, 2, 3]);
    const stop = new AbortController();
    const request = arrived();
    const reply = generateAll(session, stop.signal);
    await request;
    stop.abort();
    assert.deepEqual(await reply, []);
    assert.equal(session.lastStopReason, "cancelled");
    await requestClosed;
  });
});
