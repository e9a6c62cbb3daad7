// Two checks over a scenario's runs, both pure (issue 40):
// - Equal terms: every run was sent the same prompt, turn by turn, counted in tokens (ours:
//   the ledger before the reply, the peer: llama-server's cache_n + prompt_n). A run may part
//   from the reference only after one of its earlier replies differed from the reference's
//   (each side continues from its own replies), and then only by that reply: what each turn
//   added besides it must still match. Any other difference means the sides got unequal
//   inputs, and the scenario says "equal terms: no".
// - Greedy identity: each speculative configuration's replies against the same side's
//   configuration without speculation (ours:off, peer:default), turn by turn, with the first
//   differing position.

import type { TurnMeasure } from "./turn-measure";

export type EqualTermsExpectation = "yes" | "until-full" | "no";

export interface RunTurns {
  readonly label: string;
  readonly config: string;
  readonly side: "ours" | "peer";
  readonly repeat: number;
  readonly turns: readonly TurnMeasure[];
}

export interface PromptMismatch {
  readonly label: string;
  readonly repeat: number;
  readonly turn: number;
  readonly tokens?: number;
  readonly referenceTokens?: number;
}

export interface EqualTermsCheck {
  readonly expected: EqualTermsExpectation;
  /** The run every other run is compared with (the scenario's first). */
  readonly reference?: string;
  /** Turns compared (over all runs but the reference) and of those: same count, after a reply differed, neither. */
  readonly compared: number;
  readonly matched: number;
  readonly afterDivergence: number;
  readonly mismatches: readonly PromptMismatch[];
  /** Turns not compared: past the context filling (d), or a side that did not report its prompt. */
  readonly unchecked: number;
  /** Every run got the same prompts (no unexplained mismatch, something compared). */
  readonly equal: boolean;
}

/**
 * After a run's own reply differed, its prompts differ from the reference's by that reply; what
 * each turn added besides the previous reply (the new user message and the template around it)
 * must still match, within the few tokens a re-tokenized reply and its end marker may move.
 */
export const DIVERGENCE_SLACK = 4;

/** Prompt tokens a turn added besides the same chat's previous prompt and reply (undefined on a chat's first turn). */
function addedTokens(turns: readonly TurnMeasure[], i: number): number | undefined {
  const turn = turns[i];
  for (let j = i - 1; j >= 0; j--) {
    const previous = turns[j];
    if (previous.chat !== turn.chat) continue;
    if (turn.promptTokens === undefined || previous.promptTokens === undefined) return undefined;
    return turn.promptTokens - previous.promptTokens - previous.replyTokens;
  }
  return undefined;
}

/** Whether a turn's note says the side made room in its own way (our overflow, the client's pruning, the server's shift). */
const madeRoom = (t: TurnMeasure) => t.note !== undefined && /→|dropped|context|shift|overflow|exceeds/i.test(t.note);

export function checkEqualTerms(runs: readonly RunTurns[], expected: EqualTermsExpectation): EqualTermsCheck {
  const [reference, ...others] = runs;
  if (!reference) return { expected, compared: 0, matched: 0, afterDivergence: 0, mismatches: [], unchecked: 0, equal: false };
  // d: compare only the turns before any run had to make room.
  const limit =
    expected === "until-full"
      ? Math.min(...runs.map((r) => { const i = r.turns.findIndex(madeRoom); return i < 0 ? r.turns.length : i; }))
      : Number.POSITIVE_INFINITY;
  let compared = 0;
  let matched = 0;
  let afterDivergence = 0;
  let unchecked = 0;
  const mismatches: PromptMismatch[] = [];
  for (const run of others) {
    let diverged = false;
    for (const [i, turn] of run.turns.entries()) {
      const ref = reference.turns[i];
      if (i >= limit || !ref || turn.promptTokens === undefined || ref.promptTokens === undefined || turn.failed || ref.failed) {
        unchecked++;
      } else {
        compared++;
        const added = addedTokens(run.turns, i);
        const refAdded = addedTokens(reference.turns, i);
        if (turn.promptTokens === ref.promptTokens) matched++;
        else if (diverged && added !== undefined && refAdded !== undefined && Math.abs(added - refAdded) <= DIVERGENCE_SLACK) afterDivergence++;
        else mismatches.push({ label: run.label, repeat: run.repeat, turn: turn.turn, tokens: turn.promptTokens, referenceTokens: ref.promptTokens });
      }
      // Later prompts carry this reply: a different reply explains different counts from here on
      // (an unknown reply explains nothing).
      if (ref && turn.reply !== undefined && ref.reply !== undefined && turn.reply !== ref.reply) diverged = true;
    }
  }
  return { expected, reference: `${reference.label} (repeat ${reference.repeat})`, compared, matched, afterDivergence, mismatches, unchecked, equal: compared > 0 && mismatches.length === 0 };
}

/** One line for the report: "equal terms: yes/no …". */
export function equalTermsLine(check: EqualTermsCheck): string {
  const counts = `${check.matched} of ${check.compared} turns with the same prompt token count as ${check.reference ?? "–"}` +
    `${check.afterDivergence ? `, ${check.afterDivergence} after an earlier reply differed` : ""}${check.unchecked ? `, ${check.unchecked} not compared` : ""}`;
  if (check.expected === "no") {
    return `equal terms: no, by design (ours holds the file once, the peer is sent it whole every turn); ${counts}, ${check.mismatches.length} differing`;
  }
  if (check.equal) return `equal terms: yes (${counts})`;
  if (check.compared === 0) return "equal terms: no (nothing to compare: one run, or no prompt counts)";
  const m = check.mismatches[0];
  return `equal terms: no — ${check.mismatches.length} turn(s) with a different prompt before any reply differed; first: ${m.label} repeat ${m.repeat}, turn ${m.turn}: ${m.tokens} tokens against ${m.referenceTokens} (${counts})`;
}

/** A scenario that should be on equal terms and is not: the bench fails. */
export const equalTermsFailed = (check: EqualTermsCheck): boolean => check.expected !== "no" && check.compared > 0 && !check.equal;

export interface ReplyDifference {
  readonly turn: number;
  /** First differing reply token (ours, both replies' token ids known). */
  readonly token?: number;
  /** First differing character. */
  readonly char: number;
  /**
   * The model's top-two probability gap at the first differing token (p1 − p2 of a fresh
   * prefill of the common prefix on a speculation-off engine); undefined: not available.
   */
  readonly gap?: number;
}

export interface IdentityResult {
  readonly label: string;
  readonly baseline: string;
  readonly repeat: number;
  readonly identical: number;
  readonly turns: number;
  readonly differences: readonly ReplyDifference[];
}

export const BASELINE_CONFIG = { ours: "ours:off", peer: "peer:default" } as const;

function firstDifference<T>(a: ArrayLike<T>, b: ArrayLike<T>): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

/**
 * Each run of a speculative configuration against its side's baseline run of the same repeat
 * (else the baseline's first repeat). Gaps are added afterwards (withGaps), where the bench can
 * get them.
 */
export function greedyIdentity(runs: readonly RunTurns[]): IdentityResult[] {
  const results: IdentityResult[] = [];
  for (const run of runs) {
    const baselineConfig = BASELINE_CONFIG[run.side];
    if (run.config === baselineConfig) continue;
    const baselines = runs.filter((r) => r.config === baselineConfig && r.label === baselineConfig);
    const baseline = baselines.find((r) => r.repeat === run.repeat) ?? baselines[0];
    if (!baseline) continue;
    const differences: ReplyDifference[] = [];
    let turns = 0;
    for (const [i, turn] of run.turns.entries()) {
      const base = baseline.turns[i];
      if (!base || turn.failed || base.failed || turn.reply === undefined || base.reply === undefined) continue;
      turns++;
      if (turn.reply === base.reply) continue;
      const token = turn.replyTokenIds && base.replyTokenIds ? firstDifference(turn.replyTokenIds, base.replyTokenIds) : undefined;
      differences.push({ turn: turn.turn, token, char: firstDifference(turn.reply, base.reply) });
    }
    results.push({ label: run.label, baseline: `${baseline.label} (repeat ${baseline.repeat})`, repeat: run.repeat, identical: turns - differences.length, turns, differences });
  }
  return results;
}

/**
 * Adds the top-two gap to each of our differences whose turn the baseline was prompted with
 * exactly as the differing run (the first differing turn; later ones carry the difference):
 * `prefix(run, turn, token)` gives the tokens before the differing one (the baseline's prompt
 * and its reply up to there), `gapAt` the model's p1 − p2 after them. A failed lookup leaves
 * the gap unavailable.
 */
export async function withGaps(
  results: readonly IdentityResult[],
  prefix: (result: IdentityResult, difference: ReplyDifference) => readonly number[] | undefined,
  gapAt: (tokens: readonly number[]) => Promise<number>,
): Promise<IdentityResult[]> {
  const out: IdentityResult[] = [];
  for (const result of results) {
    const differences: ReplyDifference[] = [];
    for (const [i, d] of result.differences.entries()) {
      const tokens = i === 0 && d.token !== undefined ? prefix(result, d) : undefined;
      let gap: number | undefined;
      if (tokens && tokens.length > 0) gap = await gapAt(tokens).then((g) => Math.round(g * 10_000) / 10_000, () => undefined);
      differences.push(gap === undefined ? d : { ...d, gap });
    }
    out.push({ ...result, differences });
  }
  return out;
}

/** One line per compared run: "ours:auto repeat 1: 11/12 identical; turn 7 differs at token 42 (char 130), gap not available". */
export function identityLine(result: IdentityResult): string {
  const diffs = result.differences
    .slice(0, 4)
    .map((d) => `turn ${d.turn} differs at ${d.token !== undefined ? `token ${d.token} (char ${d.char})` : `char ${d.char}`}, ${d.gap !== undefined ? `top-two probability gap ${d.gap.toFixed(4)}` : "gap not available"}`);
  const more = result.differences.length > 4 ? `; ${result.differences.length - 4} more` : "";
  return `${result.label} repeat ${result.repeat} vs ${result.baseline}: ${result.identical}/${result.turns} replies identical${diffs.length ? `; ${diffs.join("; ")}${more}` : ""}`;
}
