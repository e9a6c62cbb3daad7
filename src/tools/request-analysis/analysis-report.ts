// The request analysis as text for a terminal: the requests, each comparison with its first
// difference shown in context, and the finding the issue asks for, "volatile content before
// stable content", with its numbers. `--json` prints the analysis object itself instead.

import type { KnownBlocksAtDifference } from "./known-blocks";
import type { AnalyzedRequest, DescribedSegment, RequestAnalysis, RequestComparison } from "./request-analysis";

const SEGMENTS_SHOWN = 4;
const WINDOW_CHARS = 72;

export function analysisReport(analysis: RequestAnalysis): string {
  const conversations = new Set(analysis.requests.map((r) => r.conversation)).size;
  const out = [`${count(analysis.requests.length)} requests in ${analysis.file} (${count(conversations)} conversations)`, ""];
  out.push(
    table(
      ["#", "conv", "kind", "messages", "tools", "tokens", "layout", "outcome"],
      analysis.requests.map((r) => [String(r.index), String(r.conversation), r.kind, rolesOf(r), String(r.tools), count(r.tokens), layoutOf(r), outcomeOf(r)]),
    ),
  );
  out.push("", "Consecutive requests (the common prefix is what a session that served the earlier one holds):");
  out.push(...comparisons(analysis.consecutive));
  out.push("", "Each request against the first request of the conversation before its own (what the prefix store can serve):");
  out.push(...(analysis.againstPreviousConversation.length > 0 ? comparisons(analysis.againstPreviousConversation) : ["  (one conversation only)"]));
  out.push("", "Volatile content before stable content:");
  if (analysis.volatileBeforeStable.length === 0) out.push("  none: no first difference is followed by a long identical run");
  for (const f of analysis.volatileBeforeStable) {
    out.push(
      `  #${f.later} vs #${f.earlier} (${f.comparison}): first difference at ${count(f.firstDifference)} of ${count(f.tokensLater)} tokens (${percent(f.firstDifference, f.tokensLater)}); ` +
        `after it ${count(f.identicalAfter)} tokens (${percent(f.identicalAfter, f.tokensLater)}) are identical, the longest run ${count(f.longestRun.length)} from ${count(f.longestRun.atLater)}; ` +
        `what differs: ${tokens(f.volatileTokens)}`,
    );
  }
  return out.join("\n");
}

function comparisons(list: readonly RequestComparison[]): string[] {
  if (list.length === 0) return ["  (one request only)"];
  const out = [
    table(
      ["pair", "tokens", "common prefix", "share", "same leading messages", "tools", "identical after the first difference"],
      list.map((c) => [
        `#${c.earlier}→#${c.later}`,
        `${count(c.tokensEarlier)} → ${count(c.tokensLater)}`,
        count(c.commonPrefix),
        c.identical ? "identical" : percent(c.commonPrefix, c.tokensLater),
        `${c.leadingIdenticalMessages}`,
        c.sameTools ? "same" : "differ",
        afterSummary(c),
      ]),
    ),
  ];
  for (const c of list) {
    if (!c.window) continue;
    out.push(`  #${c.earlier}→#${c.later} at ${count(c.commonPrefix)}: ${quote(c.window.before, "end")} ⟦ #${c.earlier}: ${quote(c.window.earlier)} | #${c.later}: ${quote(c.window.later)} ⟧`);
    // An append is said in the table; the segments worth reading are the ones that replace something.
    const segments = c.volatile.filter((s) => !(c.extendsEarlier && s.lengthEarlier === 0));
    for (const s of segments.slice(0, SEGMENTS_SHOWN)) out.push(`      differs: ${segment(c, s)}`);
    if (segments.length > SEGMENTS_SHOWN) out.push(`      … and ${segments.length - SEGMENTS_SHOWN} more segments`);
    // Without a known block at the first difference, the window above already shows what differs.
    if (c.knownBlocks && c.knownBlocks.blocks.length > 0) out.push(`      ${knownBlocks(c.knownBlocks)}`);
  }
  return out;
}

/** Which known blocks moved the first difference, and what differs once they are out of the way. */
function knownBlocks(k: KnownBlocksAtDifference): string {
  const them = k.blocks.length === 1 ? "it" : "them";
  const head =
    `first difference in the known block${k.blocks.length === 1 ? "" : "s"} ${k.blocks.join(", ")} (moved after the stable prefix by stablePrefixFirst); ` +
    `without ${them} the common prefix is ${count(k.commonPrefix)} of ${count(k.tokensLater)} tokens (${percent(k.commonPrefix, k.tokensLater)})`;
  switch (k.then) {
    case "identical":
      return `${head}, the rest identical`;
    case "appends":
      return `${head}, then the later request appends`;
    case "ends":
      return `${head}, then the later request ends`;
    case "differs":
      return `${head}, then content no marker names: ${quote(k.unknown!.before, "end")} ⟦ earlier: ${quote(k.unknown!.earlier)} | later: ${quote(k.unknown!.later)} ⟧`;
  }
}

function afterSummary(c: RequestComparison): string {
  if (c.identical) return "-";
  if (c.extendsEarlier) return `appends ${count(c.tokensLater - c.tokensEarlier)}`;
  const runs = c.stableRuns.length;
  const base = runs === 0 ? "none" : `${count(c.identicalAfterFirstDifference)} in ${runs} run${runs === 1 ? "" : "s"}`;
  return c.aligned ? base : `${base} (diff gave up: only the common suffix)`;
}

function segment(c: RequestComparison, s: DescribedSegment): string {
  return `#${c.earlier} at ${count(s.atEarlier)} (${tokens(s.lengthEarlier)}) ${quote(s.earlierText)} → #${c.later} at ${count(s.atLater)} (${tokens(s.lengthLater)}) ${quote(s.laterText)}`;
}

function rolesOf(r: AnalyzedRequest): string {
  const short: Record<string, string> = { system: "s", user: "u", assistant: "a", tool: "t" };
  return `${r.roles.length} (${r.roles.map((role) => short[role] ?? role).join("")})`;
}

function layoutOf(r: AnalyzedRequest): string {
  return r.layout ? `${r.layout.moved.join("+")} → ${r.layout.placement}` : "as sent";
}

function outcomeOf(r: AnalyzedRequest): string {
  const o = r.outcome;
  if (!o) return "no outcome recorded";
  if (o.error) return `refused: ${o.error.code}`;
  const reply = o.reply!;
  const restored = reply.restored ? `, restored ${reply.restored}${reply.restoredTokens !== undefined ? ` ${count(reply.restoredTokens)}` : ""}` : "";
  const first = reply.firstTokenMs !== undefined ? `, first token ${count(reply.firstTokenMs)} ms` : "";
  return `${count(reply.cached)} cached, ${count(reply.prefilled)} prefilled, ${count(reply.rewound)} rewound${restored}, ${count(reply.generated)} generated (${reply.stopReason})${first}`;
}

/** A window of request text as a JSON string (newlines visible), cut to fit a line. */
function quote(text: string, keep: "start" | "end" = "start"): string {
  const cut = text.length <= WINDOW_CHARS ? text : keep === "start" ? `${text.slice(0, WINDOW_CHARS)}…` : `…${text.slice(-WINDOW_CHARS)}`;
  return JSON.stringify(cut);
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => `  ${cells.map((c, i) => c.padEnd(widths[i]!)).join("  ")}`.trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

function tokens(n: number): string {
  return `${count(n)} token${n === 1 ? "" : "s"}`;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "-" : `${((part / whole) * 100).toFixed(1)}%`;
}
