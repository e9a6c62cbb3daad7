// Figures the report shows, computed from the raw turns: one summary per run (medians over
// turns 2..n), one per configuration over its repeats (median and min–max of the runs'
// medians), each side's best configuration and the ratios between the sides.

import type { RunResult, ScenarioResult } from "./run-peer-bench";
import { median, msPerToken, round1, speculationSummary, spread, type Side, type Spread, type TurnMeasure } from "./turn-measure";

export interface RunSummary {
  readonly label: string;
  readonly threads: number;
  /** Medians over turns 2..n (turn 1 carries the system prompt for both sides). */
  readonly medianTtftMs: number;
  readonly medianDecodeTokensPerSec: number;
  /** The side's own decode figure (ours: the core's TurnStats, the peer: its timings). */
  readonly medianReportedDecodeTokensPerSec: number;
  readonly prefilledTotal: number;
  readonly prefilledPerTurn: number;
  readonly lastContextFill: number;
  readonly answered: number;
  readonly turns: number;
  readonly notes: readonly string[];
}

export function summarize(run: Pick<RunResult, "label" | "threads" | "turns">): RunSummary {
  const later = run.turns.filter((t, i) => i > 0 && !t.failed);
  const answered = run.turns.filter((t) => !t.failed);
  const prefilledTotal = answered.reduce((a, t) => a + t.prefilled, 0);
  return {
    label: run.label,
    threads: run.threads,
    medianTtftMs: round1(median(later.map((t) => t.ttftMs))),
    medianDecodeTokensPerSec: round1(median(later.map((t) => t.decodeTokensPerSec))),
    medianReportedDecodeTokensPerSec: round1(median(later.flatMap((t) => (t.reportedDecodeTokensPerSec !== undefined ? [t.reportedDecodeTokensPerSec] : [])))),
    prefilledTotal,
    prefilledPerTurn: round1(prefilledTotal / Math.max(1, answered.length)),
    lastContextFill: answered.at(-1)?.contextFill ?? 0,
    answered: answered.length,
    turns: run.turns.length,
    notes: [...new Set(run.turns.flatMap((t) => (t.note ? [`turn ${t.turn}${t.chat ? ` (chat ${t.chat + 1})` : ""}: ${t.note.split("\n")[0].slice(0, 160)}`] : [])))].slice(0, 6),
  };
}

export interface ConfigSummary {
  readonly label: string;
  readonly config: string;
  readonly side: Side;
  readonly main: boolean;
  readonly threads: number;
  readonly repeats: number;
  readonly decode: Spread;
  readonly ttft: Spread;
  readonly reportedDecode: Spread;
  /** Reply tokens per streamed text chunk (why chunk counts mislead). */
  readonly tokensPerChunk?: number;
  readonly acceptance?: number;
  readonly tokensPerStep?: number;
  /** Drafted tokens kept per target (verify) step. */
  readonly acceptedPerStep?: number;
  /** Client-side decode ms per target step with speculation; per token (one step each) without. */
  readonly msPerStep?: number;
  /** msPerStep ÷ the same side's baseline (ours:off, peer:default) ms per token: what a verify step costs in plain steps. */
  readonly verifyCost?: number;
  readonly prefilledPerTurn: number;
  readonly lastContextFill: number;
  readonly answered: number;
  readonly turns: number;
  readonly notes: readonly string[];
}

/** Runs grouped by label, in the order each label first ran. */
export function configSummaries(runs: readonly RunResult[]): ConfigSummary[] {
  const summaries = groupSummaries(runs);
  return summaries.map((c) => {
    const baseline = summaries.find((b) => b.config === (c.side === "ours" ? "ours:off" : "peer:default") && b.main);
    const verifyCost = c.acceptedPerStep !== undefined && c.msPerStep !== undefined && baseline?.msPerStep ? Math.round((c.msPerStep / baseline.msPerStep) * 100) / 100 : undefined;
    return { ...c, verifyCost };
  });
}

function groupSummaries(runs: readonly RunResult[]): ConfigSummary[] {
  const labels = [...new Set(runs.map((r) => r.label))];
  return labels.map((label) => {
    const group = runs.filter((r) => r.label === label);
    const summaries = group.map(summarize);
    const turns: TurnMeasure[] = group.flatMap((r) => r.turns.filter((t, i) => i > 0 && !t.failed));
    const chunks = turns.reduce((a, t) => a + (t.chunks ?? 0), 0);
    const tokens = turns.reduce((a, t) => a + t.replyTokens, 0);
    const speculation = speculationSummary(turns);
    return {
      label,
      config: group[0].config,
      side: group[0].side,
      main: group[0].main,
      threads: group[0].threads,
      repeats: group.length,
      decode: spread(summaries.map((s) => s.medianDecodeTokensPerSec)),
      ttft: spread(summaries.map((s) => s.medianTtftMs)),
      reportedDecode: spread(summaries.map((s) => s.medianReportedDecodeTokensPerSec)),
      tokensPerChunk: chunks > 0 ? Math.round((tokens / chunks) * 100) / 100 : undefined,
      acceptance: speculation?.acceptance,
      tokensPerStep: speculation?.tokensPerStep,
      acceptedPerStep: speculation?.acceptedPerStep,
      msPerStep: speculation?.msPerStep ?? msPerToken(turns),
      prefilledPerTurn: round1(median(summaries.map((s) => s.prefilledPerTurn))),
      lastContextFill: round1(median(summaries.map((s) => s.lastContextFill))),
      answered: summaries.reduce((a, s) => a + s.answered, 0),
      turns: summaries.reduce((a, s) => a + s.turns, 0),
      notes: [...new Set(summaries.flatMap((s) => s.notes))].slice(0, 6),
    };
  });
}

export interface SideComparison {
  readonly oursBest?: ConfigSummary;
  readonly peerBest?: ConfigSummary;
  readonly oursOff?: ConfigSummary;
  readonly peerDefault?: ConfigSummary;
}

/** Each side's best configuration by median decode (the peer's main client variant only). */
export function compareSides(scenario: Pick<ScenarioResult, "runs">): SideComparison {
  const all = configSummaries(scenario.runs);
  const main = all.filter((c) => c.main);
  const bestOf = (side: Side) => main.filter((c) => c.side === side).sort((x, y) => y.decode.median - x.decode.median)[0];
  return {
    oursBest: bestOf("ours"),
    peerBest: bestOf("peer"),
    oursOff: main.find((c) => c.config === "ours:off"),
    peerDefault: main.find((c) => c.config === "peer:default"),
  };
}

export const ratio = (a: number | undefined, b: number | undefined): string => (a !== undefined && b !== undefined && b > 0 ? `${(a / b).toFixed(2)}×` : "–");
