// Issue 36's acceptance, read off a recording of VS Code's Agent mode (test/bench/agent-requests.ts
// drives it in code-server): per step of the recording, the first request that offers tools, what
// the pool served from its cache, what it prefilled and when the first token came; then the
// checks: the first conversation is answered, a follow-up prefills only what is new, and a new
// conversation (also after a window reload) is served from the prefix store. The recording knows
// no steps, so the bench passes them in; the figures come from the recorded outcomes only.

import type { LoggedRequest } from "./request-log";

/** What a step is, for its check. */
export const AGENT_STEP_KINDS = ["first", "follow-up", "new"] as const;
export type AgentStepKind = (typeof AGENT_STEP_KINDS)[number];

export interface AgentStep {
  readonly name: string;
  readonly kind: AgentStepKind;
  /** The step's requests: indexes into the log, `from` inclusive, `to` exclusive. */
  readonly from: number;
  readonly to: number;
}

/** Issue 36: a new conversation serves at least this many tokens from the store… */
export const NEW_CONVERSATION_CACHED_MIN = 15_000;
/** …and shows its first token within this long on the 2-core machine. */
export const NEW_CONVERSATION_FIRST_TOKEN_MAX_MS = 30_000;

export interface StepFigures {
  readonly step: AgentStep;
  /** 1-based, as the analysis prints requests; undefined when no request of the step offered tools. */
  readonly request?: number;
  readonly tokens?: number;
  readonly cached?: number;
  readonly prefilled?: number;
  readonly firstTokenMs?: number;
  /** Follow-ups: the tokens this request shares with the one before it (what the chat's cache held). */
  readonly heldBefore?: number;
  readonly failures: readonly string[];
}

export function agentAcceptance(requests: readonly LoggedRequest[], steps: readonly AgentStep[]): StepFigures[] {
  return steps.map((step) => figuresOf(requests, step));
}

function figuresOf(requests: readonly LoggedRequest[], step: AgentStep): StepFigures {
  const index = requests.findIndex((r, i) => i >= step.from && i < step.to && r.tools.length > 0);
  if (index < 0) return { step, failures: ["no request of this step offered tools (not Agent mode, or nothing reached our model)"] };
  const request = requests[index];
  const reply = request.outcome?.reply;
  const base = { step, request: index + 1, tokens: request.tokens.length };
  if (!reply) {
    const why = request.outcome?.error ? `refused: ${request.outcome.error.code}` : "no outcome recorded";
    return { ...base, failures: [`request #${index + 1} was not answered (${why})`] };
  }
  const figures = { ...base, cached: reply.cached, prefilled: reply.prefilled, firstTokenMs: reply.firstTokenMs };
  const failures: string[] = [];
  if (reply.firstTokenMs === undefined) failures.push(`request #${index + 1} produced no token`);
  if (step.kind === "follow-up") {
    const before = index > 0 ? requests[index - 1] : undefined;
    const heldBefore = before ? commonPrefix(before.tokens, request.tokens) : 0;
    if (reply.cached < heldBefore) {
      failures.push(`prefilled again ${heldBefore - reply.cached} of the ${heldBefore} tokens it shares with request #${index} (cached ${reply.cached})`);
    }
    return { ...figures, heldBefore, failures };
  }
  if (step.kind === "new") {
    if (reply.cached < NEW_CONVERSATION_CACHED_MIN) failures.push(`cached ${reply.cached} < ${NEW_CONVERSATION_CACHED_MIN}`);
    if (reply.firstTokenMs !== undefined && reply.firstTokenMs >= NEW_CONVERSATION_FIRST_TOKEN_MAX_MS) {
      failures.push(`first token after ${reply.firstTokenMs} ms ≥ ${NEW_CONVERSATION_FIRST_TOKEN_MAX_MS} ms`);
    }
  }
  return { ...figures, failures };
}

function commonPrefix(a: readonly number[], b: readonly number[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** The figures as a table, then each failure; what the bench prints. */
export function acceptanceReport(figures: readonly StepFigures[]): string {
  const n = (x: number | undefined) => (x === undefined ? "–" : x.toLocaleString("en-US"));
  const lines = [
    "Issue 36 acceptance (the first request of each step that offers tools):",
    "  step                                     request  tokens   cached   prefilled  first token  check",
  ];
  for (const f of figures) {
    const first = f.firstTokenMs === undefined ? "–" : `${(f.firstTokenMs / 1000).toFixed(1)} s`;
    lines.push(
      `  ${f.step.name.padEnd(40)} ${(f.request === undefined ? "–" : `#${f.request}`).padEnd(8)} ${n(f.tokens).padEnd(8)} ${n(f.cached).padEnd(8)} ${n(f.prefilled).padEnd(10)} ${first.padEnd(12)} ${f.failures.length === 0 ? "ok" : "FAILED"}`,
    );
  }
  for (const f of figures) for (const failure of f.failures) lines.push(`  ${f.step.name}: ${failure}`);
  return lines.join("\n");
}
