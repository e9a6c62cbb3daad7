// One engine host child process and its request/reply channel. Every request resolves or
// rejects exactly once: with the reply, or with EngineCrashedError when the process exits
// first (any signal, any exit code). Replies are validated before they are believed.

import { fork, type ChildProcess } from "node:child_process";
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
 * fires when its event loop is stuck, never during a long load or prefill.
 */
export const DEFAULT_STALL_MS = 120_000;

export interface EngineProcessOptions {
  /** The bundled entry; defaults to engine-host.js next to this bundle (out/). */
  readonly entry?: string;
  /** Node flags for the child (tests run the TypeScript entry with `--import tsx`). */
  readonly execArgv?: readonly string[];
  /** Arguments for the entry (tests only). */
  readonly args?: readonly string[];
  readonly watchdog?: { readonly stallMs?: number; readonly clock?: WatchdogClock };
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
  /** generateReply's tokens as they are sampled. */
  readonly onToken?: (token: number) => void;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

const STDERR_KEEP = 2_000;

export function defaultEngineHostEntry(): string {
  return join(__dirname, "engine-host.js");
}

export class EngineProcess {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderr = "";
  private exitInfo: ProcessExit | undefined;
  private stopping = false;
  private stalled = false;
  private lastSign: number;
  private readonly exited: Promise<ProcessExit>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly clock: WatchdogClock = realClock,
    private readonly stallMs = DEFAULT_STALL_MS,
  ) {
    this.lastSign = clock.now();
    const watchdog = clock.every(Math.max(1, Math.floor(stallMs / 8)), () => this.checkLiveness());
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_KEEP);
    });
    child.on("message", (raw: unknown) => this.onMessage(raw));
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        watchdog.stop();
        this.exitInfo = { code, signal, stderrTail: this.stderr.trim(), expected: this.stopping };
        const error = this.stopping ? new DisposedError("Engine process") : this.stalled ? stallError(this.stallMs) : crashError(this.exitInfo);
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
      env: { ...process.env, ELECTRON_RUN_AS_NODE: "1" },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      serialization: "json",
    });
    return new EngineProcess(child, options.watchdog?.clock, options.watchdog?.stallMs);
  }

  /** When the process last showed it was alive (any message), on the watchdog's clock. */
  get lastSignOfLife(): number {
    return this.lastSign;
  }

  /** The watchdog took the process to have stopped answering and killed it (its exit, failing the requests, follows). */
  get killedAsStalled(): boolean {
    return this.stalled;
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

  /** generateReply: `onToken` sees each sampled token before `done` resolves; cancel() asks the process to stop. */
  generateReply(request: Extract<Request, { op: "generateReply" }>, onToken: (token: number) => void): { done: Promise<ReplyOf["generateReply"]>; cancel(): void } {
    const id = this.nextId++;
    const done = this.send(id, request, onToken);
    return {
      done,
      cancel: () => {
        if (this.pending.has(id) && this.child.connected) this.child.send({ cancel: id } satisfies ToEngine, () => undefined);
      },
    };
  }

  private send<K extends RequestOp>(id: number, request: Extract<Request, { op: K }>, onToken?: (token: number) => void): Promise<ReplyOf[K]> {
    if (this.exitInfo) {
      return Promise.reject(this.exitInfo.expected ? new DisposedError("Engine process") : crashError(this.exitInfo));
    }
    return new Promise<ReplyOf[K]>((resolve, reject) => {
      if (this.pending.size === 0) this.lastSign = this.clock.now(); // the wait starts now
      this.pending.set(id, { op: request.op, onToken, resolve: resolve as (v: unknown) => void, reject });
      const message: ToEngine = { id, request };
      this.child.send(message, (error) => {
        // The channel closed under us: the exit handler rejects with the crash reason.
        if (error) this.stderr += `\nsend failed: ${error.message}`;
      });
    });
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
    if (this.exitInfo || this.stopping || this.pending.size === 0) return;
    if (this.clock.now() - this.lastSign <= this.stallMs) return;
    this.stalled = true;
    this.child.kill("SIGKILL");
  }

  private onMessage(raw: unknown): void {
    const reply = parseToHost(raw);
    if (reply) this.lastSign = this.clock.now();
    if (reply && "heartbeat" in reply) return;
    const request = reply && this.pending.get(reply.id);
    if (!reply || !request) return; // Malformed or unknown: nobody waits for it.
    if ("token" in reply) {
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
