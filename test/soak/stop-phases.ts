// Stop, measured per phase of a turn (issue 28: Stop must end a turn within one token or 250 ms
// of engine time in every phase). The soak picks a phase, sends, and presses Stop the moment the
// turn enters it (the core's onPhase callback; after an engine kill, the moment the turn starts,
// while the engine process restarts). The report gives, per phase, how long the turn took to
// end after Stop and how many text chunks still arrived. Measured, not asserted: timing
// belongs in this report, not in tests (the tests check the same by event order).

import type { TurnPhase } from "../../src/extension/core/turn-runner";
import { TURN_PHASES } from "../../src/extension/core/turn-runner";

export const STOP_PHASES = [...TURN_PHASES, "engineRestart"] as const;
export type StopPhase = (typeof STOP_PHASES)[number];

export interface StopPhaseFigures {
  /** Stops pressed in this phase. */
  readonly stopped: number;
  /** Turns that never entered the phase (e.g. no overflow was due), so no Stop was pressed. */
  readonly notReached: number;
  /** From Stop to the turn's end, ms: median, 95th percentile, max. */
  readonly medianMs: number;
  readonly p95Ms: number;
  readonly maxMs: number;
  /** Most text chunks a turn still streamed after Stop (the bound: one token). */
  readonly maxChunksAfterStop: number;
}

export class StopPhaseTally {
  private readonly latencies = new Map<StopPhase, number[]>();
  private readonly chunksAfter = new Map<StopPhase, number>();
  private readonly missed = new Map<StopPhase, number>();

  /** One measured stop: call `stopped()` when Stop is pressed, `chunk()` per text chunk, `settled()` when the turn ends. */
  begin(phase: StopPhase): { stopped(): void; chunk(): void; settled(): void } {
    let stoppedAt: number | undefined;
    let chunks = 0;
    let done = false;
    return {
      stopped: () => {
        stoppedAt ??= performance.now();
      },
      chunk: () => {
        if (stoppedAt !== undefined) chunks++;
      },
      settled: () => {
        if (done) return;
        done = true;
        if (stoppedAt === undefined) {
          this.missed.set(phase, (this.missed.get(phase) ?? 0) + 1);
          return;
        }
        const list = this.latencies.get(phase) ?? [];
        list.push(performance.now() - stoppedAt);
        this.latencies.set(phase, list);
        this.chunksAfter.set(phase, Math.max(this.chunksAfter.get(phase) ?? 0, chunks));
      },
    };
  }

  figures(): Record<StopPhase, StopPhaseFigures> {
    const entries = STOP_PHASES.map((phase) => {
      const sorted = [...(this.latencies.get(phase) ?? [])].sort((a, b) => a - b);
      const at = (q: number) => (sorted.length === 0 ? 0 : Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!));
      return [
        phase,
        { stopped: sorted.length, notReached: this.missed.get(phase) ?? 0, medianMs: at(0.5), p95Ms: at(0.95), maxMs: Math.round(sorted.at(-1) ?? 0), maxChunksAfterStop: this.chunksAfter.get(phase) ?? 0 },
      ] as const;
    });
    return Object.fromEntries(entries) as Record<StopPhase, StopPhaseFigures>;
  }
}

/** The phase a turn-phase callback reports maps to itself; an engine restart is pressed at the turn's start. */
export function isTurnPhase(phase: StopPhase): phase is TurnPhase {
  return (TURN_PHASES as readonly string[]).includes(phase);
}
