// An Engine whose model runs in an engine host process. Tokenizer and chat template stay in
// this process (the contract is synchronous there); KV states live in the child. When the
// child dies, every call in flight fails with EngineCrashedError, every state is emptied,
// and the next call starts a new process after a backoff, until the crash guard gives up.
// A call that waits for that restart (backoff, model load) stops waiting on a Stop; the
// restart goes on for the next call. Dispose ends the backoff and stops a process still loading.

import type { Engine, EngineInfo, KvState, Tokenizer } from "../core/engine";
import { realSleep, throwIfAborted, type Sleep } from "../core/abort";
import { CancelledError, DisposedError, EngineCrashedError } from "../core/errors";
import { loadTokenizerOnly, type LoadedTokenizer } from "../backends/load-engine";
import { CrashGuard, type CrashGuardOptions } from "./crash-guard";
import { EngineProcess, type EngineProcessOptions, type ProcessExit } from "./engine-process";
import type { LoadRequest } from "./protocol";
import { ProxyKvState, type ProxyStateOwner } from "./proxy-state";

export interface ProxyEngineOptions extends EngineProcessOptions {
  readonly guard?: CrashGuardOptions;
  /** Told about every crash (for the log); the engine recovers by itself. */
  readonly onCrash?: (exit: ProcessExit, restarting: boolean) => void;
  /** The restart backoff's sleep (tests inject one they end by hand). */
  readonly sleep?: Sleep;
}

export class ProxyEngine implements Engine, ProxyStateOwner {
  private current: EngineProcess;
  private starting: Promise<EngineProcess> | undefined;
  /** The process a restart is loading the model in (not current until loaded). */
  private loading: EngineProcess | undefined;
  /** Aborted by dispose: ends a restart's backoff. */
  private readonly disposal = new AbortController();
  private readonly guard: CrashGuard;
  private readonly states = new Set<ProxyKvState>();
  private disposed = false;
  /** Crashes seen since the engine was loaded. */
  crashes = 0;

  private constructor(
    private readonly request: LoadRequest,
    private readonly options: ProxyEngineOptions,
    readonly info: EngineInfo,
    readonly chatTemplate: string,
    private readonly loadedTokenizer: LoadedTokenizer,
    first: EngineProcess,
    /** Why the requested backend was not used (a fallback), if it was not. */
    readonly notice: string | undefined,
    readonly replyLoop: boolean,
  ) {
    this.guard = new CrashGuard(options.guard);
    this.current = first;
    this.watch(first);
  }

  /**
   * Starts an engine process, loads the model there and the tokenizer here. `signal` (the
   * load notification's Cancel) stops the process mid-load: CancelledError, nothing left running.
   */
  static async start(request: LoadRequest, options: ProxyEngineOptions = {}, signal?: AbortSignal): Promise<ProxyEngine> {
    throwIfAborted(signal);
    const process = EngineProcess.start(options);
    const onAbort = () => void process.stop();
    signal?.addEventListener("abort", onAbort, { once: true });
    let tokenizer: LoadedTokenizer | undefined;
    try {
      const loaded = await process.request({ op: "load", load: request });
      throwIfAborted(signal);
      tokenizer = await loadTokenizerOnly(loaded.backend, loaded.modelPath);
      throwIfAborted(signal);
      const { chatTemplate, notice, replyLoop, ...info } = loaded;
      return new ProxyEngine(request, options, info, chatTemplate, tokenizer, process, notice, replyLoop === true);
    } catch (error) {
      await process.stop();
      await tokenizer?.dispose();
      if (signal?.aborted) throw new CancelledError();
      throw error;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }

  get tokenizer(): Tokenizer {
    return this.loadedTokenizer.tokenizer;
  }

  /** The engine process's pid while it runs. */
  get pid(): number | undefined {
    return this.current.alive ? this.current.pid : undefined;
  }

  /**
   * The remote state is created on first use (as after a crash): opening a chat never
   * waits on, or fails with, an engine process that is restarting.
   */
  async createState(): Promise<KvState> {
    if (this.disposed) throw new DisposedError("Engine");
    const state = new ProxyKvState(this, this.info.capacity, undefined, this.replyLoop);
    this.states.add(state);
    return state;
  }

  /** The live engine process: after a crash, a new one (with backoff) unless the guard gave up. */
  process(): Promise<EngineProcess> {
    if (this.disposed) return Promise.reject(new DisposedError("Engine"));
    if (this.current.alive) return Promise.resolve(this.current);
    this.starting ??= this.restart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  forget(state: ProxyKvState): void {
    this.states.delete(state);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.disposal.abort();
    for (const state of [...this.states]) state.lost();
    this.states.clear();
    await this.loading?.stop();
    await this.starting?.catch(() => undefined);
    await this.current.stop();
    await this.loadedTokenizer.dispose();
  }

  private async restart(): Promise<EngineProcess> {
    const decision = this.guard.decide(Date.now());
    if (!decision.restart) {
      throw new EngineCrashedError(`${capitalize(decision.reason)}. Reload the window or pick another model (Select Model…) to try again.`, false);
    }
    if (decision.delayMs > 0) {
      await (this.options.sleep ?? realSleep)(decision.delayMs, this.disposal.signal).catch(() => undefined);
    }
    if (this.disposed) throw new DisposedError("Engine");
    const process = EngineProcess.start(this.options);
    this.watch(process);
    this.loading = process;
    try {
      await process.request({ op: "load", load: this.request });
      if (this.disposed) throw new DisposedError("Engine");
    } catch (error) {
      if (process.alive) await process.stop();
      throw error;
    } finally {
      this.loading = undefined;
    }
    // Only a loaded process becomes current: callers never reach one still loading.
    this.current = process;
    return process;
  }

  private watch(process: EngineProcess): void {
    void process.whenExited().then((exit) => {
      if (exit.expected || this.disposed) return;
      this.crashes++;
      this.guard.crashed(Date.now());
      for (const state of this.states) state.lost();
      this.options.onCrash?.(exit, this.guard.decide(Date.now()).restart);
    });
  }
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
