// The one session a chat panel holds and the engine lease under it, and the rule that makes
// closing safe while it is still opening: an open that finds the slot closed (or the panel
// disposed) after any of its waits gives back what it made — the session disposed, the lease
// released — and publishes nothing. Opening happens once however many callers ask; a failed
// open is retried by the next caller. Pure (no vscode), so it is unit-tested on its own.

import { DisposedError } from "../core/errors";

export interface Releasable {
  release(): void;
}

export interface Disposable {
  dispose(): Promise<void>;
}

/** How a slot opens: take the engine lease, then open a session on it (resumed from a snapshot or the transcript). */
export interface SlotOpening<L extends Releasable, S extends Disposable> {
  acquire(): Promise<L>;
  open(lease: L): Promise<S>;
  /** Runs only for an open that is published (the slot was not closed meanwhile). */
  ready?(session: S, lease: L): void;
}

export class SessionSlot<L extends Releasable, S extends Disposable> {
  /** Bumped by close(): an open started before it is stale. */
  private generation = 0;
  private lease: L | undefined;
  private current: S | undefined;
  private opening: Promise<S> | undefined;

  constructor(private readonly isDisposed: () => boolean = () => false) {}

  get session(): S | undefined {
    return this.current;
  }

  /** An open is under way (or done): see `session` for whether it is ready. */
  get opened(): boolean {
    return this.opening !== undefined;
  }

  /** The session, opened with `steps()` unless an open is already under way or done. */
  ensure(steps: () => SlotOpening<L, S>): Promise<S> {
    if (!this.opening) {
      const opening: Promise<S> = this.open(steps).catch((error: unknown) => {
        if (this.opening === opening) this.opening = undefined;
        throw error;
      });
      this.opening = opening;
    }
    return this.opening;
  }

  /** Dispose the session and release the lease; an open under way gives back what it makes. */
  async close(): Promise<void> {
    this.generation++;
    const session = this.current;
    const lease = this.lease;
    this.current = undefined;
    this.lease = undefined;
    this.opening = undefined;
    await session?.dispose();
    lease?.release();
  }

  private async open(makeSteps: () => SlotOpening<L, S>): Promise<S> {
    const generation = this.generation;
    const stale = () => generation !== this.generation || this.isDisposed();
    const steps = makeSteps();
    const lease = await steps.acquire();
    if (stale()) {
      lease.release();
      throw new DisposedError("Chat panel");
    }
    let session: S;
    try {
      session = await steps.open(lease);
    } catch (error) {
      lease.release();
      throw stale() ? new DisposedError("Chat panel") : error;
    }
    if (stale()) {
      await session.dispose();
      lease.release();
      throw new DisposedError("Chat panel");
    }
    this.lease = lease;
    this.current = session;
    steps.ready?.(session, lease);
    return session;
  }
}
