// Writes a peer-bench result as JSON, Markdown and SVG plots under one folder.

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { PeerBenchResult, ScenarioResult } from "./run-peer-bench";
import { SCENARIO_TITLES } from "./scenarios";
import { lineChart } from "./svg-plot";
import { median, round1, type TurnMeasure } from "./turn-measure";

export interface RunSummary {
  readonly label: string;
  readonly threads: number;
  /** Medians over turns 2..n (turn 1 carries the system prompt for both sides). */
  readonly medianTtftMs: number;
  readonly medianDecodeTokensPerSec: number;
  readonly prefilledTotal: number;
  readonly prefilledPerTurn: number;
  readonly lastContextFill: number;
  readonly answered: number;
  readonly turns: number;
  readonly notes: readonly string[];
}

export function summarize(run: ScenarioResult["runs"][number]): RunSummary {
  const later = run.turns.filter((t, i) => i > 0 && !t.failed);
  const answered = run.turns.filter((t) => !t.failed);
  const prefilledTotal = answered.reduce((a, t) => a + t.prefilled, 0);
  return {
    label: run.label,
    threads: run.threads,
    medianTtftMs: round1(median(later.map((t) => t.ttftMs))),
    medianDecodeTokensPerSec: round1(median(later.map((t) => t.decodeTokensPerSec))),
    prefilledTotal,
    prefilledPerTurn: round1(prefilledTotal / Math.max(1, answered.length)),
    lastContextFill: lastFill(run.turns),
    answered: answered.length,
    turns: run.turns.length,
    notes: [...new Set(run.turns.flatMap((t) => (t.note ? [`turn ${t.turn}${t.chat ? ` (chat ${t.chat + 1})` : ""}: ${t.note.split("\n")[0].slice(0, 160)}`] : [])))].slice(0, 6),
  };
}

function lastFill(turns: readonly TurnMeasure[]): number {
  const answered = turns.filter((t) => !t.failed);
  return answered.at(-1)?.contextFill ?? 0;
}

const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : "–");

export function markdownReport(result: PeerBenchResult, command: string, plotPrefix: string): string {
  const m = result.machine;
  const lines: string[] = [
    `Command: \`${command}\` · ${result.date.slice(0, 16).replace("T", " ")} UTC`,
    "",
    `Machine: ${m.cores} cores, ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}. Model: ${result.model}. ` +
      `Greedy, ${result.settings.maxTokens} tokens max per reply, ${result.settings.turns} turns per scenario.`,
    `Ours: ${result.builds.ours}. Peer: ${result.builds.peer ?? "not run"}.`,
    "",
    "**Thread sweep** (scenario a, medians over turns 2..n; each side at each count):",
    "",
    "| threads | ours decode tok/s | peer decode tok/s | ours ÷ peer | ours first token ms | peer first token ms | ours ÷ peer |",
    "|---|---|---|---|---|---|---|",
  ];
  const threads = [...new Set(result.sweep.map((p) => p.threads))];
  for (const t of threads) {
    const ours = result.sweep.find((p) => p.side === "ours" && p.threads === t);
    const peer = result.sweep.find((p) => p.side === "peer" && p.threads === t);
    lines.push(
      `| ${t} | ${ours?.medianDecodeTokensPerSec ?? "–"} | ${peer?.medianDecodeTokensPerSec ?? "–"} | ${ratio(ours?.medianDecodeTokensPerSec ?? 0, peer?.medianDecodeTokensPerSec ?? 0)} ` +
        `| ${ours?.medianTtftMs ?? "–"} | ${peer?.medianTtftMs ?? "–"} | ${ratio(ours?.medianTtftMs ?? 0, peer?.medianTtftMs ?? 0)} |`,
    );
  }
  lines.push(
    "",
    `Best thread count: ours ${result.best.ours}, peer ${result.best.peer ?? "–"}. ` +
      `Idle CPU after a reply (10 s): ours ${result.idleCpuPercent.ours}% of one core, peer ${result.idleCpuPercent.peer ?? "–"}%.`,
    "",
  );
  for (const scenario of result.scenarios) {
    const summaries = scenario.runs.map(summarize);
    const ours = summaries[0];
    lines.push(
      `**Scenario ${scenario.id}: ${SCENARIO_TITLES[scenario.id]}** (context ${scenario.contextSize} per chat)`,
      "",
      "| run | threads | median first token ms | median decode tok/s | prefilled total | prefilled per turn | context fill at the end | answered |",
      "|---|---|---|---|---|---|---|---|",
    );
    for (const s of summaries) {
      lines.push(`| ${s.label} | ${s.threads} | ${s.medianTtftMs} | ${s.medianDecodeTokensPerSec} | ${s.prefilledTotal} | ${s.prefilledPerTurn} | ${s.lastContextFill} | ${s.answered}/${s.turns} |`);
    }
    for (const peer of summaries.slice(1)) {
      lines.push(
        "",
        `ours ÷ ${peer.label}: first token ${ratio(ours.medianTtftMs, peer.medianTtftMs)}, decode ${ratio(ours.medianDecodeTokensPerSec, peer.medianDecodeTokensPerSec)}, ` +
          `prefilled per turn ${ratio(ours.prefilledPerTurn, peer.prefilledPerTurn)}, context fill at the end ${ratio(ours.lastContextFill, peer.lastContextFill)}.`,
      );
    }
    const notes = summaries.flatMap((s) => s.notes.map((n) => `${s.label}, ${n}`));
    if (notes.length > 0) lines.push("", ...notes.map((n) => `- ${n}`));
    lines.push(
      "",
      `![first-token time per turn, scenario ${scenario.id}](${plotPrefix}scenario-${scenario.id}-ttft.svg) ` +
        `![tokens prefilled per turn, scenario ${scenario.id}](${plotPrefix}scenario-${scenario.id}-prefilled.svg)`,
      "",
    );
  }
  return `${lines.join("\n")}\n`;
}

export async function writeReport(dir: string, result: PeerBenchResult, command: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  const write = async (name: string, text: string) => {
    await writeFile(join(dir, name), text);
    written.push(join(dir, name));
  };
  await write("peer-bench.json", `${JSON.stringify(result, null, 2)}\n`);
  await write("peer-bench.md", markdownReport(result, command, ""));
  for (const scenario of result.scenarios) {
    const series = (value: (t: TurnMeasure) => number) =>
      scenario.runs.map((run) => ({ label: run.label, points: run.turns.filter((t) => !t.failed).map((t, i) => [i + 1, value(t)] as const) }));
    const title = `Scenario ${scenario.id}: ${SCENARIO_TITLES[scenario.id]}`;
    await write(`scenario-${scenario.id}-ttft.svg`, lineChart(`${title} — first-token time`, "turn", "ms", series((t) => t.ttftMs)));
    await write(`scenario-${scenario.id}-prefilled.svg`, lineChart(`${title} — tokens prefilled`, "turn", "tokens", series((t) => t.prefilled)));
  }
  return written;
}
