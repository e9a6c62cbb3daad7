// One call on a KV state at a time (the KvState contract: callers serialize, and a state
// refuses an overlapping call with ConcurrentAccessError rather than corrupt its cache). Every
// state shares this guard; each maps its own failures (native errors, a crashed process).

import { ConcurrentAccessError, DisposedError } from "./errors";

export class ExclusiveAccess {
  private running = false;

  constructor(
    /** What a call after dispose is refused for, e.g. "llama.cpp state". */
    private readonly what: string,
    private readonly isDisposed: () => boolean = () => false,
    /** The error a failed call throws (default: the failure itself). */
    private readonly mapError: (error: unknown) => unknown = (error) => error,
  ) {}

  get busy(): boolean {
    return this.running;
  }

  async run<T>(operation: () => Promise<T>): Promise<T> {
    if (this.isDisposed()) throw new DisposedError(this.what);
    if (this.running) throw new ConcurrentAccessError();
    this.running = true;
    try {
      return await operation();
    } catch (error) {
      throw this.mapError(error);
    } finally {
      this.running = false;
    }
  }
}
