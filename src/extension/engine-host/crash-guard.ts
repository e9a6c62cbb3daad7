// When to restart a crashed engine process: with a growing delay, and not at all after too
// many crashes within a minute (a crash loop must cost the user nothing but a message).
// Pure logic, no process handling: unit-tested.

export interface CrashGuardOptions {
  /** Crashes within `windowMs` after which restarting stops. Defaults to 5. */
  readonly maxCrashes?: number;
  /** Defaults to 60 000 (one minute). */
  readonly windowMs?: number;
  /** Delay before the first restart; doubles per recent crash. Defaults to 250 ms. */
  readonly baseDelayMs?: number;
  /** Defaults to 8 000 ms. */
  readonly maxDelayMs?: number;
}

export type RestartDecision = { readonly restart: true; readonly delayMs: number } | { readonly restart: false; readonly reason: string };

export class CrashGuard {
  private readonly crashes: number[] = [];
  private readonly maxCrashes: number;
  private readonly windowMs: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(options: CrashGuardOptions = {}) {
    this.maxCrashes = options.maxCrashes ?? 5;
    this.windowMs = options.windowMs ?? 60_000;
    this.baseDelayMs = options.baseDelayMs ?? 250;
    this.maxDelayMs = options.maxDelayMs ?? 8_000;
  }

  /** Record a crash at `now` (ms). */
  crashed(now: number): void {
    this.crashes.push(now);
  }

  /** Crashes within the window ending at `now`. */
  recent(now: number): number {
    while (this.crashes.length > 0 && now - this.crashes[0] > this.windowMs) this.crashes.shift();
    return this.crashes.length;
  }

  /** Whether (and when, counted from the last crash) to start the process again. */
  decide(now: number): RestartDecision {
    const recent = this.recent(now);
    if (recent >= this.maxCrashes) {
      return {
        restart: false,
        reason: `the engine process crashed ${recent} times within ${Math.round(this.windowMs / 1000)} s, so it is not restarted again`,
      };
    }
    if (recent === 0) return { restart: true, delayMs: 0 };
    const delay = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (recent - 1));
    const last = this.crashes[this.crashes.length - 1];
    return { restart: true, delayMs: Math.max(0, last + delay - now) };
  }
}
