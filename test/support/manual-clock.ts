// A watchdog clock the test moves by hand: the engine process's watchdog and progress deadline
// are checked at chosen instants, never by sleeping.
import type { WatchdogClock } from "../../src/extension/engine-host/engine-process";

export class ManualClock implements WatchdogClock {
  private time = 0;
  private readonly ticks = new Set<() => void>();
  now(): number {
    return this.time;
  }
  every(_ms: number, tick: () => void): { stop(): void } {
    this.ticks.add(tick);
    return { stop: () => this.ticks.delete(tick) };
  }
  advance(ms: number): void {
    this.time += ms;
    for (const tick of [...this.ticks]) tick();
  }
}
