// A KvState whose cache lives in the engine process. Its length is what the process last
// reported, and 0 once that process is gone: a crash empties the cache, and the session
// sees it (length != ledger) and re-prefills. A lost state gets a fresh remote state from
// the restarted process on its next evaluate.

import type { CacheProbe, KvState, ReplyOptions, ReplyRun, SamplingOptions, SpeculationCounts } from "../core/engine";
import { CapacityError } from "../core/errors";
import { ExclusiveAccess } from "../core/exclusive-access";
import { abortable } from "../core/abort";
import { replyRunStartingLater } from "../core/reply-run";
import type { EngineProcess } from "./engine-process";

interface Remote {
  readonly id: number;
  readonly process: EngineProcess;
}

/** What a proxy state needs from its engine. */
export interface ProxyStateOwner {
  /** The live engine process (restarted after a crash when allowed). */
  process(): Promise<EngineProcess>;
  forget(state: ProxyKvState): void;
}

export class ProxyKvState implements KvState {
  private known = 0;
  private readonly access = new ExclusiveAccess("engine process state", () => this.disposed, (error) => {
    if (error instanceof Error && "code" in error && error.code === "engine_crashed") this.lost();
    return error;
  });
  private disposed = false;

  /** Present when the engine process's states have it: the reply loop runs there, tokens stream here. */
  readonly generateReply?: (tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void) => ReplyRun;

  constructor(
    private readonly owner: ProxyStateOwner,
    readonly capacity: number,
    private remote: Remote | undefined,
    replyLoop = false,
  ) {
    if (replyLoop) this.generateReply = (tokens, options, onToken) => this.runReply(tokens, options, onToken);
  }

  get length(): number {
    return this.remote?.process.alive ? this.known : 0;
  }

  /** The pid of the process holding this state (tests kill it). */
  get pid(): number | undefined {
    return this.remote?.process.alive ? this.remote.process.pid : undefined;
  }

  evaluate(tokens: readonly number[], sample?: SamplingOptions, signal?: AbortSignal): Promise<number | undefined> {
    return this.exclusive(async () => {
      if (tokens.length === 0) return undefined;
      this.assertFits(tokens.length);
      const remote = await this.ensureRemote(signal);
      const reply = await remote.process.request({ op: "evaluate", state: remote.id, tokens, sample });
      this.known = reply.length;
      return reply.next;
    });
  }

  evaluateTopK(tokens: readonly number[], k: number): Promise<Array<readonly [number, number]>> {
    return this.exclusive(async () => {
      this.assertFits(tokens.length);
      const remote = await this.ensureRemote();
      const reply = await remote.process.request({ op: "evaluateTopK", state: remote.id, tokens, k });
      this.known = reply.length;
      return reply.top;
    });
  }

  private runReply(tokens: readonly number[], options: ReplyOptions, onToken: (token: number) => void): ReplyRun {
    let speculation: SpeculationCounts | undefined;
    let serverCached: number | undefined;
    // A cancel while the process restarts (backoff, model load) ends the wait, not only the run.
    const waiting = new AbortController();
    const run = replyRunStartingLater((begin) =>
      this.exclusive(async () => {
        this.assertFits(tokens.length + options.maxTokens - 1);
        const remote = await this.ensureRemote(waiting.signal);
        const request = { op: "generateReply" as const, state: remote.id, tokens, sample: options.sample, maxTokens: options.maxTokens };
        const reply = await begin(remote.process.generateReply(request, onToken, { held: this.known })).done;
        this.known = reply.length;
        speculation = reply.speculation;
        serverCached = reply.serverCached;
        return reply.length;
      }),
    );
    const cancel = () => {
      waiting.abort();
      run.cancel();
    };
    return { ...run, cancel, speculation: () => speculation, serverCached: () => serverCached };
  }

  truncate(length: number): Promise<void> {
    return this.exclusive(async () => {
      // A lost state is empty: erasing its tail is a no-op, and needs no process.
      if (!this.remote?.process.alive || length >= this.known) return;
      const reply = await this.remote.process.request({ op: "truncate", state: this.remote.id, length });
      this.known = reply.length;
    });
  }

  reset(): Promise<void> {
    return this.exclusive(async () => {
      if (!this.remote?.process.alive) {
        this.lost();
        return;
      }
      const reply = await this.remote.process.request({ op: "reset", state: this.remote.id });
      this.known = reply.length;
    });
  }

  saveSnapshot(path: string, tokens: readonly number[]): Promise<number> {
    return this.exclusive(async () => {
      const remote = await this.ensureRemote();
      return (await remote.process.request({ op: "saveSnapshot", state: remote.id, path, tokens })).bytes;
    });
  }

  loadSnapshot(path: string): Promise<readonly number[]> {
    return this.exclusive(async () => {
      const remote = await this.ensureRemote();
      const reply = await remote.process.request({ op: "loadSnapshot", state: remote.id, path });
      this.known = reply.length;
      return reply.tokens;
    });
  }

  saveSnapshotDelta(path: string, from: number, tokens: readonly number[]): Promise<number> {
    return this.exclusive(async () => {
      const remote = await this.ensureRemote();
      return (await remote.process.request({ op: "saveSnapshotDelta", state: remote.id, path, from, tokens })).bytes;
    });
  }

  appendSnapshot(path: string): Promise<readonly number[]> {
    return this.exclusive(async () => {
      // A failed append may have emptied the state there (KvState.appendSnapshot): the caller resets it.
      const remote = await this.ensureRemote();
      const reply = await remote.process.request({ op: "appendSnapshot", state: remote.id, path });
      this.known = reply.length;
      return reply.tokens;
    });
  }

  /**
   * The engine process's backend answers (its own probe, over the validated IPC reply). With no
   * process the cache is gone: nothing is held, by the only count there is.
   */
  probeCache(): Promise<CacheProbe | undefined> {
    return this.exclusive(async () => {
      if (!this.remote?.process.alive) return { held: 0, source: "no engine process (it exited)" };
      return (await this.remote.process.request({ op: "probeCache", state: this.remote.id })).probe;
    });
  }

  /** The engine process died: the cache is gone. */
  lost(): void {
    this.remote = undefined;
    this.known = 0;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.owner.forget(this);
    const remote = this.remote;
    this.lost();
    if (remote?.process.alive) await remote.process.request({ op: "disposeState", state: remote.id }).catch(() => undefined);
  }

  private assertFits(count: number): void {
    if (this.length + count > this.capacity) throw new CapacityError(this.length, count, this.capacity);
  }

  /** The remote state, after a crash a new one; `signal` ends the wait for a restarting process (which goes on for the next call). */
  private async ensureRemote(signal?: AbortSignal): Promise<Remote> {
    if (this.remote?.process.alive) return this.remote;
    const process = await abortable(this.owner.process(), signal);
    const created = await process.request({ op: "createState" });
    this.remote = { id: created.state, process };
    this.known = 0;
    return this.remote;
  }

  private exclusive<T>(operation: () => Promise<T>): Promise<T> {
    return this.access.run(operation);
  }
}
