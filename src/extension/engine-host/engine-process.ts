// One engine host child process and its request/reply channel. Every request resolves or
// rejects exactly once: with the reply, or with EngineCrashedError when the process exits
// first (any signal, any exit code). Replies are validated before they are believed.

import { fork, type ChildProcess } from "node:child_process";
import { withoutLlamaFolders } from "../backends/llamacpp/foreign-libraries";
import { join } from "node:path";
import {
  CancelledError,
  CapacityError,
  ConcurrentAccessError,
  DisposedError,
  EngineCrashedError,
  EngineFailedError,
  StatefulChatError,
  type ErrorCode,
} from "../core/errors";
import { callDeadline, DEFAULT_STEP_MS, type CallDeadline, type EngineTraits, type ProgressDeadlines } from "./progress-deadline";
import { parseToHost, replyChecks, type ReplyOf, type Request, type RequestOp, type ToEngine, type WireError } from "./protocol";

/** Time for the watchdog; tests inject one they advance by hand. */
export interface WatchdogClock {
  now(): number;
  every(ms: number, tick: () => void): { stop(): void };
}

const realClock: WatchdogClock = {
  now: () => Date.now(),
  every: (ms, tick) => {
    const timer = setInterval(tick, ms);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  },
};

/**
 * With requests waiting and no message at all (reply, token, heartbeat) for this long, the
 * process is taken to have stopped answering: it is killed and its requests fail as a crash
 * (so the next turn restarts it). The engine process sends a heartbeat every 2 s, so this only
 * fires when its event loop is stuck, never during a long load or prefill. A native call that
 * never returns (a GPU driver hang) leaves the event loop running: the progress deadline
 * (progress-deadline.ts) catches that one.
 */
const DEFAULT_STALL_MS = 120_000;

export interface EngineProcessOptions {
  /** The bundled entry; defaults to engine-host.js next to this bundle (out/). */
  readonly entry?: string;
  /** Node flags for the child (tests run the TypeScript entry with `--import tsx`). */
  readonly execArgv?: readonly string[];
  /** Arguments for the entry (tests only). */
  readonly args?: readonly string[];
  readonly watchdog?: {
    readonly stallMs?: number;
    readonly clock?: WatchdogClock;
    /** How long a call may go without progress (a reply, a token); defaults in progress-deadline.ts. */
    readonly progress?: ProgressDeadlines;
  };
}

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last lines the process wrote to stderr (llama.cpp's abort message, say). */
  readonly stderrTail: string;
  /** The exit was asked for (dispose), not a crash. */
  readonly expected: boolean;
}

interface Pending {
  readonly op: RequestOp;
  readonly deadline: CallDeadline;
  /** generateReply's tokens as they are sampled. */
  readonly onToken?: (token: number) => void;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

const STDERR_KEEP = 2_000;

function defaultEngineHostEntry(): string {
  return join(__dirname, "engine-host.js");
}

export class EngineProcess {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderr = "";
  private exitInfo: ProcessExit | undefined;
  private stopping = false;
  private stalled = false;
  /** The call the progress deadline ended (its exit, failing the requests, follows). */
  private stuck: { readonly op: RequestOp; readonly ms: number } | undefined;
  private lastSign: number;
  /** When a call last made progress (a reply or a token; heartbeats do not count), or the wait began. */
  private lastProgress: number;
  /** Learned from the load request this process was sent. */
  private engine: EngineTraits = { draftModel: false, remote: false };
  private readonly exited: Promise<ProcessExit>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly clock: WatchdogClock = realClock,
    private readonly stallMs = DEFAULT_STALL_MS,
    private readonly progress: ProgressDeadlines = {},
  ) {
    this.lastSign = this.lastProgress = clock.now();
    const shortest = Math.min(stallMs, progress.stepMs ?? DEFAULT_STEP_MS);
    const watchdog = clock.every(Math.max(1, Math.floor(shortest / 8)), () => this.checkLiveness());
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_KEEP);
    });
    child.on("message", (raw: unknown) => this.onMessage(raw));
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        watchdog.stop();
        this.exitInfo = { code, signal, stderrTail: this.stderr.trim(), expected: this.stopping };
        const error = this.stopping
          ? new DisposedError("Engine process")
          : this.stalled
            ? stallError(this.stallMs)
            : this.stuck
              ? stuckError(this.stuck.op, this.stuck.ms)
              : crashError(this.exitInfo);
        for (const request of this.pending.values()) request.reject(error);
        this.pending.clear();
        resolve(this.exitInfo);
      });
    });
    // A failed spawn emits "error" and then (maybe) "exit"; treat it as a crash.
    child.on("error", (error) => {
      this.stderr += `\n${error.message}`;
    });
  }

  static start(options: EngineProcessOptions = {}): EngineProcess {
    const child = fork(options.entry ?? defaultEngineHostEntry(), [...(options.args ?? [])], {
      // Inside VS Code process.execPath is Electron: ELECTRON_RUN_AS_NODE makes it plain Node.
      execPath: process.execPath,
      execArgv: [...(options.execArgv ?? [])],
      env: engineEnvironment(),
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "json",
    });
    return new EngineProcess(child, options.watchdog?.clock, options.watchdog?.stallMs, options.watchdog?.progress);
  }

  /** When the process last showed it was alive (any message), on the watchdog's clock. */
  get lastSignOfLife(): number {
    return this.lastSign;
  }

  /** The watchdog took the process to have stopped answering and killed it (its exit, failing the requests, follows). */
  get killedAsStalled(): boolean {
    return this.stalled;
  }

  /** The progress deadline took a native call to have stopped (a GPU driver hang) and killed the process. */
  get killedAsStuck(): boolean {
    return this.stuck !== undefined;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exitInfo === undefined;
  }

  /** Resolves when the process has exited, for whatever reason. */
  whenExited(): Promise<ProcessExit> {
    return this.exited;
  }

  request<K extends RequestOp>(request: Extract<Request, { op: K }>): Promise<ReplyOf[K]> {
    return this.send(this.nextId++, request);
  }

  /**
   * generateReply: `onToken` sees each sampled token before `done` resolves; cancel() asks the
   * process to stop. `held`: the tokens the state holds before `request.tokens` (for the deadline).
   */
  generateReply(
    request: Extract<Request, { op: "generateReply" }>,
    onToken: (token: number) => void,
    context: { readonly held?: number } = {},
  ): { done: Promise<ReplyOf["generateReply"]>; cancel(): void } {
    const id = this.nextId++;
    const done = this.send(id, request, onToken, context.held);
    return {
      done,
      cancel: () => {
        if (this.pending.has(id) && this.child.connected) this.child.send({ cancel: id } satisfies ToEngine, () => undefined);
      },
    };
  }

  private send<K extends RequestOp>(id: number, request: Extract<Request, { op: K }>, onToken?: (token: number) => void, held?: number): Promise<ReplyOf[K]> {
    if (this.exitInfo) {
      return Promise.reject(this.exitInfo.expected ? new DisposedError("Engine process") : crashError(this.exitInfo));
    }
    this.learnEngine(request);
    return new Promise<ReplyOf[K]>((resolve, reject) => {
      const now = this.clock.now();
      if (this.pending.size === 0) this.lastSign = this.lastProgress = now; // the wait starts now
      const deadline = callDeadline(request, this.progress, this.engine, now, held);
      this.pending.set(id, { op: request.op, deadline, onToken, resolve: resolve as (v: unknown) => void, reject });
      const message: ToEngine = { id, request };
      this.child.send(message, (error) => {
        // The channel closed under us: the exit handler rejects with the crash reason.
        if (error) this.stderr += `\nsend failed: ${error.message}`;
      });
    });
  }

  /** What the load tells about the engine's calls' deadlines. */
  private learnEngine(request: Request): void {
    if (request.op !== "load") return;
    // Any draft model given: whether it drafts is the speculation layer's choice, and a
    // longer allowance than needed only delays the end of a hang.
    this.engine = { draftModel: request.load.draftModelPath !== undefined, remote: request.load.backend === "remote" };
  }

  /** Ask the process to free its model and leave; kill it if it does not within `graceMs`. */
  async stop(graceMs = 5_000): Promise<void> {
    if (this.exitInfo) return;
    this.stopping = true;
    if (this.child.connected) this.child.disconnect();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  private checkLiveness(): void {
    if (this.exitInfo || this.stopping || this.stalled || this.stuck || this.pending.size === 0) return;
    const now = this.clock.now();
    if (now - this.lastSign > this.stallMs) {
      this.stalled = true;
      this.child.kill("SIGKILL");
      return;
    }
    this.checkProgress(now);
  }

  /**
   * The engine runs its calls on one model (node-llama-cpp batches the states of a context
   * together; one hang stops them all), so progress is the process's: no reply and no token
   * for longer than the largest allowance among the calls waiting (a call queued behind a long
   * one gets the long one's time). A call with no deadline (a load) suspends the check.
   */
  private checkProgress(now: number): void {
    let limit = 0;
    let longest: Pending | undefined;
    for (const call of this.pending.values()) {
      const allowance = call.deadline.allowanceMs;
      if (allowance === undefined) return;
      if (allowance > limit) [limit, longest] = [allowance, call];
    }
    if (!longest || now - this.lastProgress <= limit) return;
    this.stuck = { op: longest.op, ms: limit };
    this.child.kill("SIGKILL");
  }

  private onMessage(raw: unknown): void {
    const reply = parseToHost(raw);
    if (reply) this.lastSign = this.clock.now();
    if (reply && "heartbeat" in reply) return;
    const request = reply && this.pending.get(reply.id);
    if (!reply || !request) return; // Malformed or unknown: nobody waits for it.
    this.lastProgress = this.clock.now();
    if ("token" in reply) {
      request.deadline.progressed(this.lastProgress);
      request.onToken?.(reply.token);
      return;
    }
    this.pending.delete(reply.id);
    if (!reply.ok) {
      request.reject(errorFromWire(reply.error));
      return;
    }
    const check = replyChecks[request.op] as (v: unknown) => boolean;
    if (check(reply.value)) request.resolve(reply.value);
    else request.reject(new EngineFailedError(`engine process sent a malformed ${request.op} reply`));
  }
}

function stallError(stallMs: number): StatefulChatError {
  return new EngineCrashedError(`The engine process stopped answering (no reply and no sign of life for ${Math.round(stallMs / 1000)} s), so it was stopped.`, true);
}

function stuckError(op: RequestOp, ms: number): StatefulChatError {
  return new EngineCrashedError(
    `The engine made no progress on ${op} for ${ms >= 1_000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`} while its process still ran (a native call that never returned, such as a GPU driver hang), so it was stopped.`,
    true,
  );
}

export function describeExit(exit: Pick<ProcessExit, "code" | "signal">): string {
  return exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code ?? "?"}`;
}

function crashError(exit: ProcessExit): StatefulChatError {
  const tail = exit.stderrTail.split("\n").filter(Boolean).slice(-2).join(" ").slice(0, 300);
  return new EngineCrashedError(`The engine process stopped (${describeExit(exit)})${tail ? `: ${tail}` : ""}.`, true);
}

/** Rebuilds the typed core error the engine process threw. */
export function errorFromWire(error: WireError): StatefulChatError {
  switch (error.code) {
    case "capacity_exceeded":
      if (error.capacity) return new CapacityError(error.capacity.position, error.capacity.requested, error.capacity.capacity);
      break;
    case "concurrent_access":
      return new ConcurrentAccessError();
    case "cancelled":
      return new CancelledError();
    case "engine_failed":
      return new EngineFailedError(error.message);
  }
  return new RemoteError(error.code, error.message);
}

/** Any other typed error of the engine process, code and message kept. */
class RemoteError extends StatefulChatError {
  constructor(code: ErrorCode, message: string) {
    super(code, message);
  }
}

/**
 * The engine process's environment: ours, plain Node, and no folder of another llama.cpp on
 * the library path (it would load its libraries under our addon: foreign-libraries.ts).
 */
function engineEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ELECTRON_RUN_AS_NODE: "1" };
  const libraryPath = withoutLlamaFolders(env.LD_LIBRARY_PATH);
  if (libraryPath.value === undefined) delete env.LD_LIBRARY_PATH;
  else env.LD_LIBRARY_PATH = libraryPath.value;
  return env;
}
