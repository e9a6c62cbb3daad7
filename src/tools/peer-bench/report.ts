// Writes a peer-bench result as JSON, Markdown and SVG plots under one folder.

import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { PeerBenchResult } from "./run-peer-bench";
import { equalTermsLine, identityLine } from "./equal-terms";
import { SCENARIO_TITLES } from "./scenarios";
import { compareSides, configSummaries, ratio, type ConfigSummary } from "./summary";
import { lineChart } from "./svg-plot";
import type { Spread, TurnMeasure } from "./turn-measure";

export { summarize, type RunSummary } from "./summary";

const withSpread = (s: Spread, repeats: number) => (repeats > 1 ? `${s.median} (${s.min}–${s.max})` : `${s.median}`);
const orDash = (v: number | undefined, digits = 2) => (v === undefined ? "–" : v.toFixed(digits));

function configRow(c: ConfigSummary): string {
  return (
    `| ${c.label} | ${withSpread(c.decode, c.repeats)} | ${withSpread(c.reportedDecode, c.repeats)} | ${withSpread(c.ttft, c.repeats)} ` +
    `| ${orDash(c.acceptance)} | ${orDash(c.tokensPerStep)} | ${orDash(c.acceptedPerStep)} | ${orDash(c.msPerStep)} | ${orDash(c.verifyCost)} ` +
    `| ${orDash(c.tokensPerChunk)} | ${c.prefilledPerTurn} | ${c.lastContextFill} | ${c.answered}/${c.turns} |`
  );
}

export function markdownReport(result: PeerBenchResult, command: string, plotPrefix: string): string {
  const m = result.machine;
  const s = result.settings;
  const lines: string[] = [
    `Command: \`${command}\` · ${result.date.slice(0, 16).replace("T", " ")} UTC`,
    "",
    `Machine: ${m.cores} cores, ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}. Model: ${result.model}` +
      `${result.draftModel ? `, draft model ${result.draftModel}` : ""}. Greedy, ${s.maxTokens} tokens max per reply and ${s.turns} turns per scenario ` +
      `(editing scenarios: ${s.editMaxTokens} and ${s.editTurns}, context ${s.editContextSize}); ${s.repeats} alternated repeat(s) of ${s.specConfigs.join(", ")}` +
      `${s.specConfigs.includes("peer:draft") ? ` (peer draft: --spec-draft-n-max ${s.peerDraftMax})` : ""}.`,
    `Ours: ${result.builds.ours}. Peer: ${result.builds.peer ?? "not run"}.`,
    "",
    "Decode is counted in tokens on both sides over the same client-side interval (first to last streamed chunk): ours TurnStats.replyTokens, " +
      "the peer's `predicted_n`. \"Own figure\": ours as the core's TurnStats (the CLI's turn events), the peer's `timings.predicted_per_second`. " +
      "Medians over turns 2..n per run, then the median (min–max) over repeats. Per step: accepted drafts per target (verify) step; " +
      "ms per step is the client-side decode interval over the target steps (per token without speculation); verify cost is that ÷ the same side's " +
      "ms per token without speculation (ours:off, peer:default). Equal terms: every run of a scenario was sent the same prompt token count per turn " +
      "(ours: the ledger before the reply, the peer: cache_n + prompt_n), until one of its own earlier replies differed.",
    "",
    "**Thread sweep** (scenario a, ours:off vs peer:default, medians over turns 2..n; each side at each count):",
    "",
    "| threads | ours decode tok/s | peer decode tok/s | ours ÷ peer | ours first token ms | peer first token ms | ours ÷ peer |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const t of [...new Set(result.sweep.map((p) => p.threads))]) {
    const ours = result.sweep.find((p) => p.side === "ours" && p.threads === t);
    const peer = result.sweep.find((p) => p.side === "peer" && p.threads === t);
    lines.push(
      `| ${t} | ${ours?.medianDecodeTokensPerSec ?? "–"} | ${peer?.medianDecodeTokensPerSec ?? "–"} | ${ratio(ours?.medianDecodeTokensPerSec, peer?.medianDecodeTokensPerSec)} ` +
        `| ${ours?.medianTtftMs ?? "–"} | ${peer?.medianTtftMs ?? "–"} | ${ratio(ours?.medianTtftMs, peer?.medianTtftMs)} |`,
    );
  }
  lines.push(
    "",
    `Best thread count: ours ${result.best.ours}, peer ${result.best.peer ?? "–"}. ` +
      `Idle CPU after a reply (10 s): ours ${result.idleCpuPercent.ours}% of one core, peer ${result.idleCpuPercent.peer ?? "–"}%.`,
    "",
  );
  for (const scenario of result.scenarios) {
    const configs = configSummaries(scenario.runs);
    const cmp = compareSides(scenario);
    lines.push(
      `**Scenario ${scenario.id}: ${SCENARIO_TITLES[scenario.id]}** (${scenario.turns} turns, ${scenario.maxTokens}-token replies, context ${scenario.contextSize} per chat)`,
      "",
      `${equalTermsLine(scenario.equalTerms)}.`,
      "",
      "| configuration | decode tok/s | own figure tok/s | first token ms | acceptance | tokens per target step | accepted per verify step | ms per step | verify cost | tokens per chunk | prefilled per turn | context fill at the end | answered |",
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
      ...configs.map(configRow),
      "",
      `Best: ours ${cmp.oursBest?.label ?? "–"}, peer ${cmp.peerBest?.label ?? "–"}. Decode: ours best ÷ peer best ${ratio(cmp.oursBest?.decode.median, cmp.peerBest?.decode.median)}, ` +
        `ours best ÷ peer default ${ratio(cmp.oursBest?.decode.median, cmp.peerDefault?.decode.median)}, ours:off ÷ peer default ${ratio(cmp.oursOff?.decode.median, cmp.peerDefault?.decode.median)}, ` +
        `ours best ÷ ours:off ${ratio(cmp.oursBest?.decode.median, cmp.oursOff?.decode.median)}. ` +
        `First token: ours best ÷ peer best ${ratio(cmp.oursBest?.ttft.median, cmp.peerBest?.ttft.median)}.`,
    );
    if (scenario.identity.length > 0) {
      const identical = scenario.identity.reduce((a, r) => a + r.identical, 0);
      const compared = scenario.identity.reduce((a, r) => a + r.turns, 0);
      const gaps = scenario.identity.flatMap((r) => r.differences).filter((d) => d.gap === undefined).length;
      lines.push(
        "",
        `Greedy identity (each configuration against its side's run without speculation): ${identical}/${compared} replies identical, ` +
          `${compared - identical} differing${gaps ? ` (${gaps} with the top-two gap not available)` : ""}.`,
        ...scenario.identity.map((r) => `- ${identityLine(r)}`),
      );
    }
    const notes = configs.flatMap((c) => c.notes.map((n) => `${c.label}, ${n}`));
    if (notes.length > 0) lines.push("", ...notes.map((n) => `- ${n}`));
    lines.push(
      "",
      `![first-token time per turn, scenario ${scenario.id}](${plotPrefix}scenario-${scenario.id}-ttft.svg) ` +
        `![decode speed per turn, scenario ${scenario.id}](${plotPrefix}scenario-${scenario.id}-decode.svg) ` +
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
    // One line per configuration: its first repeat.
    const firsts = scenario.runs.filter((run) => run.repeat === 1);
    const series = (value: (t: TurnMeasure) => number) =>
      firsts.map((run) => ({ label: run.label, points: run.turns.filter((t) => !t.failed).map((t, i) => [i + 1, value(t)] as const) }));
    const title = `Scenario ${scenario.id}: ${SCENARIO_TITLES[scenario.id]}`;
    await write(`scenario-${scenario.id}-ttft.svg`, lineChart(`${title} — first-token time`, "turn", "ms", series((t) => t.ttftMs)));
    await write(`scenario-${scenario.id}-decode.svg`, lineChart(`${title} — decode`, "turn", "tok/s", series((t) => t.decodeTokensPerSec)));
    await write(`scenario-${scenario.id}-prefilled.svg`, lineChart(`${title} — tokens prefilled`, "turn", "tokens", series((t) => t.prefilled)));
  }
  return written;
}
