// Serializes every operation on one session: FIFO, one at a time, each with its own
// AbortSignal. Stop aborts the running operation; dispose aborts it and rejects the rest.

import { CancelledError, DisposedError } from "./errors";

export type OperationKind = "send" | "reset" | "restore" | "other";

interface QueuedOperation {
  readonly kind: OperationKind;
  readonly controller: AbortController;
  readonly run: (signal: AbortSignal) => Promise<void>;
  readonly reject: (error: unknown) => void;
}

export class SessionQueue {
  private readonly waiting: QueuedOperation[] = [];
  private running: QueuedOperation | undefined;
  private disposed = false;
  private idleWaiters: (() => void)[] = [];

  get busy(): boolean {
    return this.running !== undefined;
  }

  get runningKind(): OperationKind | undefined {
    return this.running?.kind;
  }

  get pending(): number {
    return this.waiting.length;
  }

  enqueue<T>(kind: OperationKind, operation: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.disposed) return Promise.reject(new DisposedError("Session queue"));
    return new Promise<T>((resolve, reject) => {
      const controller = new AbortController();
      this.waiting.push({
        kind,
        controller,
        reject,
        run: async (signal) => {
          try {
            resolve(await operation(signal));
          } catch (error) {
            reject(error);
          }
        },
      });
      this.pump();
    });
  }

  /** Abort the running operation (if any). Queued operations still run, in order. */
  abortRunning(): boolean {
    if (!this.running) return false;
    this.running.controller.abort();
    return true;
  }

  /** Reject every waiting operation with CancelledError (a reset discards queued messages). */
  cancelWaiting(): number {
    const dropped = this.waiting.splice(0);
    for (const operation of dropped) operation.reject(new CancelledError());
    return dropped.length;
  }

  /** Resolves once nothing is running or waiting. */
  whenIdle(): Promise<void> {
    if (!this.running && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Abort the running operation, reject the waiting ones, refuse new ones; resolves when idle. */
  async dispose(): Promise<void> {
    if (!this.disposed) {
      this.disposed = true;
      this.running?.controller.abort();
      for (const operation of this.waiting.splice(0)) operation.reject(new DisposedError("Session"));
    }
    await this.whenIdle();
  }

  private pump(): void {
    if (this.running) return;
    const next = this.waiting.shift();
    if (!next) {
      const waiters = this.idleWaiters.splice(0);
      for (const resolve of waiters) resolve();
      return;
    }
    this.running = next;
    void next.run(next.controller.signal).finally(() => {
      this.running = undefined;
      this.pump();
    });
  }
}
