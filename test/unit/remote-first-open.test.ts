// The first open of a remote engine ends promptly on Stop, on Cancel and when the chat panel
// closes (issue 28): the signal reaches the server's first requests (/props, the tokenizer
// check's /tokenize), the request is closed on the server's side, and no load is left
// running for nobody. The panel's side is wired as the shell wires it (chats/lease-slot.ts
// over core/shared-loads.ts over loadEngine), without vscode. A scripted local llama-server;
// the local tokenizer is SmolLM2's tokenizer.json. Waits follow events (a request arrived,
// its connection closed), never wall time.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadEngine, type LoadedEngine } from "../../src/extension/backends/load-engine";
import { loadLocalTokenizer } from "../../src/extension/backends/remote/local-tokenizer";
import type { Tokenizer } from "../../src/extension/core/engine";
import { CancelledError, DisposedError } from "../../src/extension/core/errors";
import { LeaseSlot } from "../../src/extension/chats/lease-slot";
import { SharedLoads, type SharedLease } from "../../src/extension/core/shared-loads";
import { smolTokenizerConfig, smolTokenizerJson } from "../native/fixtures";

type Path = "/props" | "/v1/models" | "/tokenize";

/** One request as the server saw it: `dropped` resolves if its connection closes before it is answered (the client gave up). */
interface Arrival {
  readonly dropped: Promise<void>;
}

/** A llama-server whose answers the test holds back per path; it reports each arrival and each request closed unanswered. */
class ScriptedServer {
  private readonly held = new Map<Path, Array<() => void>>();
  private waiters: Array<{ path: string; resolve: (arrival: Arrival) => void }> = [];
  private server: Server | undefined;

  constructor(private readonly tokenizer: () => Tokenizer) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Requests for `path` wait, unanswered (a server still loading its model, or stuck), until release(). */
  hold(path: Path): void {
    this.held.set(path, []);
  }

  /** Answers the held requests for `path` (those whose client is still there) and every later one. */
  release(path: Path): void {
    const pending = this.held.get(path) ?? [];
    this.held.delete(path);
    pending.forEach((answer) => answer());
  }

  /** The next request for `path`, once it has arrived. */
  next(path: Path): Promise<Arrival> {
    return new Promise((resolve) => this.waiters.push({ path, resolve }));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const path = (req.url ?? "/").split("?")[0];
    const dropped = new Promise<void>((resolve) =>
      res.once("close", () => {
        if (!res.writableFinished) resolve();
      }),
    );
    const due = this.waiters.filter((w) => w.path === path);
    this.waiters = this.waiters.filter((w) => w.path !== path);
    due.forEach((w) => w.resolve({ dropped }));
    const held = this.held.get(path as Path);
    if (held) held.push(() => this.answer(path, raw, res));
    else this.answer(path, raw, res);
  }

  private answer(path: string, raw: string, res: ServerResponse): void {
    if (res.destroyed) return;
    const json = (body: unknown): void => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (path === "/props") return json({ total_slots: 2, default_generation_settings: { n_ctx: 2048 }, model_path: "SmolLM2-135M-Instruct" });
    if (path === "/v1/models") return json({ data: [{ id: "SmolLM2-135M-Instruct", meta: { n_vocab: 49152 } }] });
    if (path === "/tokenize") {
      const body = JSON.parse(raw) as { content: string; parse_special: boolean };
      return json({ tokens: this.tokenizer().encode(body.content, { specials: body.parse_special }) });
    }
    res.writeHead(404).end();
  }
}

// A wait that does not end fails here: the defect is a first open that ignores its signal
// (the tokenizer check's request alone would wait 15 s for its own timeout).
const hangGuard = { timeout: 10_000 };

describe("the first open of a remote engine ends on Stop, Cancel and panel close", { timeout: 60_000 }, () => {
  let folder: string;
  let tokenizer: Tokenizer;
  let disposeTokenizer: () => Promise<void>;
  const server = new ScriptedServer(() => tokenizer);

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), "sc-remote-open-"));
    writeFileSync(join(folder, "tokenizer.json"), smolTokenizerJson());
    writeFileSync(join(folder, "tokenizer_config.json"), smolTokenizerConfig());
    const local = await loadLocalTokenizer(folder);
    tokenizer = local.tokenizer;
    disposeTokenizer = () => local.dispose();
    await server.start();
  });
  after(async () => {
    await server.stop();
    await disposeTokenizer();
    rmSync(folder, { recursive: true, force: true });
  });

  const connect = (signal?: AbortSignal): Promise<LoadedEngine> =>
    loadEngine({ modelPath: folder, backend: "remote", contextSize: 1024, server: { url: server.url, kind: "auto" } }, { signal });

  it("connects when nothing is cancelled (the scripted server passes the tokenizer check)", hangGuard, async () => {
    const loaded = await connect();
    assert.match(loaded.engine.info.details, /llama-server .*tokenizer checked/);
    await loaded.engine.dispose();
  });

  /** Holds the server's answer to `path`, aborts the connect once that request arrived: CancelledError, and the server sees the request closed. */
  async function stopWhileServerHolds(path: Path): Promise<void> {
    server.hold(path);
    try {
      const stop = new AbortController();
      const arrived = server.next(path);
      const connecting = connect(stop.signal);
      const request = await arrived;
      stop.abort();
      await assert.rejects(connecting, CancelledError);
      await request.dropped;
    } finally {
      server.release(path);
    }
  }

  it("a signal during the tokenizer check ends the connect with CancelledError and the server sees the request closed", hangGuard, () => stopWhileServerHolds("/tokenize"));

  it("a signal while the server has not answered /props yet (still starting) ends it the same way", hangGuard, () => stopWhileServerHolds("/props"));

  /** A chat panel's slot as the shell opens it: the engine from shared loads (one per key), a session on it. */
  function panelOn(loads: SharedLoads<LoadedEngine>, started: () => void = () => undefined) {
    const slot = new LeaseSlot<SharedLease<LoadedEngine>, { dispose(): Promise<void> }>();
    const ensure = () =>
      slot.ensure(() => ({
        acquire: (signal) =>
          loads.acquire(
            "remote",
            (abandoned) => {
              started();
              return connect(abandoned);
            },
            signal,
          ),
        open: async (lease) => {
          const state = await lease.value.engine.createState();
          return { dispose: () => state.dispose() };
        },
      }));
    return { slot, ensure };
  }

  it("closing the panel during the first open aborts the connect: the request is closed, no load is left, nothing published", hangGuard, async () => {
    let freed = 0;
    const loads = new SharedLoads<LoadedEngine>((loaded) => void loaded.engine.dispose().then(() => freed++));
    const panel = panelOn(loads);
    server.hold("/tokenize");
    try {
      const arrived = server.next("/tokenize");
      const opening = panel.ensure();
      const request = await arrived;
      await panel.slot.close();
      await assert.rejects(opening, DisposedError);
      await request.dropped;
      assert.equal(loads.size, 0, "the abandoned load is gone");
      assert.equal(panel.slot.session, undefined);
      assert.equal(freed, 0, "no engine was made");
    } finally {
      server.release("/tokenize");
    }
  });

  it("Stop during the first open ends it (CancelledError); the panel then opens again and works", hangGuard, async () => {
    let freed = 0;
    const loads = new SharedLoads<LoadedEngine>((loaded) => void loaded.engine.dispose().then(() => freed++));
    const panel = panelOn(loads);
    server.hold("/tokenize");
    const arrived = server.next("/tokenize");
    const opening = panel.ensure();
    const request = await arrived;
    panel.slot.cancelOpening();
    await assert.rejects(opening, CancelledError);
    await request.dropped;
    assert.equal(loads.size, 0);
    server.release("/tokenize");
    const session = await panel.ensure();
    assert.equal(panel.slot.session, session, "Retry (the next message) opens the session");
    assert.equal(loads.size, 1);
    await panel.slot.close();
    assert.equal(loads.size, 0, "closing the panel releases the engine");
  });

  it("one panel's Stop leaves the load running for another panel that waits for the same engine", hangGuard, async () => {
    let starts = 0;
    const loads = new SharedLoads<LoadedEngine>((loaded) => void loaded.engine.dispose());
    const first = panelOn(loads, () => starts++);
    const second = panelOn(loads, () => starts++);
    server.hold("/tokenize");
    const arrived = server.next("/tokenize");
    const firstOpening = first.ensure();
    const secondOpening = second.ensure();
    const request = await arrived;
    first.slot.cancelOpening();
    await assert.rejects(firstOpening, CancelledError);
    assert.equal(loads.size, 1, "still loading for the second panel");
    let cut = false;
    void request.dropped.then(() => (cut = true));
    server.release("/tokenize");
    const session = await secondOpening;
    assert.equal(second.slot.session, session);
    assert.equal(starts, 1, "one connect served both");
    assert.equal(cut, false, "the connect the second panel waits for was not cut");
    await second.slot.close();
    assert.equal(loads.size, 0);
  });
});
