// The one session a chat panel holds and the engine lease under it, and the rule that makes
// closing safe while it is still opening: an open that finds the slot closed (or the panel
// disposed) after any of its waits gives back what it made — the session disposed, the lease
// released — and publishes nothing. Opening happens once however many callers ask; a failed
// open is retried by the next caller. The open's steps get a signal that close() (and Stop,
// cancelOpening()) aborts, so its waits (a model fetch, a server's first requests) end at once
// instead of running on for a chat that is gone. Pure (no vscode), so it is unit-tested on its own.

import { CancelledError, DisposedError } from "../core/errors";

export interface Releasable {
  release(): void;
}

export interface Disposable {
  dispose(): Promise<void>;
}

/** How a slot opens: take the engine lease, then open a session on it (resumed from a snapshot or the transcript). */
export interface SlotOpening<L extends Releasable, S extends Disposable> {
  /** `signal` aborts when the slot is closed (reason: DisposedError) or the open is cancelled (reason: CancelledError). */
  acquire(signal: AbortSignal): Promise<L>;
  open(lease: L, signal: AbortSignal): Promise<S>;
  /** Runs only for an open that is published (the slot was not closed meanwhile). */
  ready?(session: S, lease: L): void;
}

export class LeaseSlot<L extends Releasable, S extends Disposable> {
  /** Bumped by close(): an open started before it is stale. */
  private generation = 0;
  private lease: L | undefined;
  private current: S | undefined;
  private opening: Promise<S> | undefined;
  /** Aborts the open under way (until it is published). */
  private openAbort: AbortController | undefined;

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
        // A Stop that came once the session was open kept it (see open()): later callers get it.
        if (this.opening === opening) this.opening = this.current ? Promise.resolve(this.current) : undefined;
        throw error;
      });
      this.opening = opening;
    }
    return this.opening;
  }

  /**
   * Stop while the session opens: the open under way ends with CancelledError. Its waits (the
   * model's load or fetch, a server's first requests) end at once and what they made is given
   * back; a session that finished opening anyway is kept for the next ensure(). Nothing once
   * the session is open.
   */
  cancelOpening(): void {
    this.openAbort?.abort(new CancelledError());
  }

  /** Dispose the session and release the lease; an open under way is aborted and gives back what it makes. */
  async close(): Promise<void> {
    this.generation++;
    this.openAbort?.abort(new DisposedError("Chat panel"));
    this.openAbort = undefined;
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
    const abort = new AbortController();
    this.openAbort = abort;
    // Why this open may not publish: the slot closed or the panel disposed, else cancelled.
    const ended = (): Error | undefined =>
      generation !== this.generation || this.isDisposed() ? new DisposedError("Chat panel") : abort.signal.aborted ? new CancelledError() : undefined;
    try {
      const steps = makeSteps();
      let lease: L;
      try {
        lease = await steps.acquire(abort.signal);
      } catch (error) {
        throw ended() ?? error;
      }
      // Closed meanwhile: give the lease back. A Stop that came as the lease arrived goes on to
      // open the session and keep it (below); the waits that honour the signal have ended already.
      const gone = ended();
      if (gone instanceof DisposedError) {
        lease.release();
        throw gone;
      }
      let session: S;
      try {
        session = await steps.open(lease, abort.signal);
      } catch (error) {
        lease.release();
        throw ended() ?? error;
      }
      const late = ended();
      if (late instanceof DisposedError) {
        await session.dispose();
        lease.release();
        throw late;
      }
      this.lease = lease;
      this.current = session;
      steps.ready?.(session, lease);
      // Stop pressed while the session finished opening: this caller's turn is cancelled, but the
      // opened session is kept (giving it back could free the engine just loaded, and the next
      // message would load it again).
      if (late) throw late;
      return session;
    } finally {
      if (this.openAbort === abort) this.openAbort = undefined;
    }
  }
}
