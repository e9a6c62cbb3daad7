// Which pools have gone unused long enough to let their model go: VS Code's Chat may ask once
// and never again, and a model held for it would keep its engine process and memory forever.
// A pool in use (a request running or loading) is never idle; the clock is injected so the
// rule is tested without waiting.

export class IdleTracker<K> {
  private readonly inUse = new Map<K, number>();
  private readonly lastUsed = new Map<K, number>();

  constructor(private readonly now: () => number = Date.now) {}

  begin(key: K): void {
    this.inUse.set(key, (this.inUse.get(key) ?? 0) + 1);
    this.lastUsed.set(key, this.now());
  }

  end(key: K): void {
    const left = (this.inUse.get(key) ?? 1) - 1;
    if (left > 0) this.inUse.set(key, left);
    else this.inUse.delete(key);
    this.lastUsed.set(key, this.now());
  }

  /** Keys not in use and last used `idleMs` or longer ago; none when idleMs is 0 (never release). */
  idle(idleMs: number): K[] {
    if (!(idleMs > 0)) return [];
    const now = this.now();
    return [...this.lastUsed].filter(([key, at]) => !this.inUse.has(key) && now - at >= idleMs).map(([key]) => key);
  }

  forget(key: K): void {
    this.lastUsed.delete(key);
    this.inUse.delete(key);
  }
}
