// Loads shared by every caller that asks for the same key (an engine, the default model's
// fetch), where each caller may give up on its own: a caller's signal (its panel's Stop, or
// the panel closed) ends only that caller's wait, and the load itself is aborted once the
// last caller waiting for it has gone, so no connection, download or engine process goes on
// for a chat that no longer wants it. A loaded value is reference counted: the last release
// frees it, and a load that completes after it was abandoned is freed at once. Pure (no
// vscode), so it is unit-tested on its own.

import { abortable } from "./abort";
import { CancelledError } from "./errors";

export interface SharedLease<T> {
  readonly value: T;
  /** Idempotent; the last release frees the value. */
  release(): void;
}

interface Entry<T> {
  readonly loading: Promise<T>;
  /** Aborted when the last waiter leaves before the load ends (or on dispose). */
  readonly abandon: AbortController;
  users: number;
  loaded: boolean;
  value?: T;
}

export class SharedLoads<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    /** Frees a loaded value nobody holds any more. */
    private readonly free: (value: T) => void = () => undefined,
  ) {}

  /** Loads under way or loaded. */
  get size(): number {
    return this.entries.size;
  }

  /** The values loaded and held. */
  loadedValues(): T[] {
    return [...this.entries.values()].flatMap((e) => (e.loaded ? [e.value as T] : []));
  }

  /**
   * The value under `key`, loaded by `start` unless a load of it is under way or done.
   * `start`'s signal aborts when every caller has given up before it ends. `signal` ends
   * this caller's wait with CancelledError (the load goes on for the others).
   */
  async acquire(key: string, start: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<SharedLease<T>> {
    if (signal?.aborted) throw new CancelledError();
    const entry = this.entries.get(key) ?? this.begin(key, start);
    entry.users++;
    let value: T;
    try {
      value = await abortable(entry.loading, signal);
      // Disposed while loading: the value (if any) is freed already.
      if (entry.abandon.signal.aborted) throw new CancelledError();
    } catch (error) {
      entry.users--;
      // The last waiter gone: a load under way is abandoned, a value that loaded meanwhile is freed.
      if (entry.users === 0 && this.entries.get(key) === entry) {
        this.entries.delete(key);
        if (entry.loaded) this.free(entry.value as T);
        else entry.abandon.abort();
      }
      throw error;
    }
    let released = false;
    return {
      value,
      release: () => {
        if (released) return;
        released = true;
        entry.users--;
        if (entry.users === 0 && this.entries.get(key) === entry) {
          this.entries.delete(key);
          this.free(value);
        }
      },
    };
  }

  /** Aborts the loads under way and frees every loaded value; leases released later free nothing. */
  dispose(): void {
    const entries = [...this.entries.values()];
    this.entries.clear();
    for (const entry of entries) {
      if (entry.loaded) this.free(entry.value as T);
      else entry.abandon.abort();
    }
  }

  private begin(key: string, start: (signal: AbortSignal) => Promise<T>): Entry<T> {
    const abandon = new AbortController();
    const entry: Entry<T> = { loading: start(abandon.signal), abandon, users: 0, loaded: false };
    this.entries.set(key, entry);
    // Registered before any waiter's: it runs first, so a waiter sees `loaded` and `abandon` settled.
    entry.loading.then(
      (value) => {
        if (abandon.signal.aborted) {
          // Nobody waits for it any more (or the loads were disposed): it finished regardless.
          this.free(value);
          return;
        }
        entry.loaded = true;
        entry.value = value;
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry;
  }
}
