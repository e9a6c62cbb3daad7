// The scenarios of the peer bench, written once against a side-neutral chat so that ours
// and llama-server replay exactly the same conversation. Every scenario but `e-incremental`
// sends both sides the same messages (equal terms, issue 40): the same system prompt, the
// same user messages with the same code in them, each side continuing from its own replies.
// `e-incremental` is scenario e with our context ledger (the file held once, deltas after),
// against the peer sent the whole file every turn: labelled, and never equal terms.

import { ContextLedger, type ContextBudget } from "../../extension/core/context-delta";
import { CODING_QUESTIONS } from "./coding-questions";
import { rewriteSession } from "./rewrite-requests";
import { editingSession, type WorkspaceTurn } from "./editing-workspace";
import { EDITING_CHAT_IDS, editingChat, type EditingChatId } from "./editing-chats";
import type { TurnMeasure } from "./turn-measure";

/** The scenarios a run makes without `--scenarios` (the editing chats are named, or `all`). */
export const DEFAULT_SCENARIO_IDS = ["a", "b", "c", "d", "e"] as const;
export const SCENARIO_IDS = [...DEFAULT_SCENARIO_IDS, "e-incremental", ...EDITING_CHAT_IDS] as const;
export type ScenarioId = (typeof SCENARIO_IDS)[number];
export const isScenarioId = (value: string): value is ScenarioId => (SCENARIO_IDS as readonly string[]).includes(value);
const isEditingChat = (id: ScenarioId): id is EditingChatId => (EDITING_CHAT_IDS as readonly string[]).includes(id);

export const SCENARIO_TITLES: Record<ScenarioId, string> = {
  a: "one chat, coding questions",
  b: "two chats interleaved turn by turn",
  c: "editing session, the current file changes between turns",
  d: "a long chat past the context size",
  e: "editing chat, each reply rewrites a function of the attached file with a small change",
  "e-incremental": "scenario e with our incremental context (ours holds the file once, the peer gets it whole): NOT equal terms",
  "edit-rewrite": "editing chat: rewrite a function (code inline, 12 turns)",
  "edit-rename": "editing chat: rename across a file (code inline, 12 turns)",
  "edit-param": "editing chat: add a parameter through its call sites (code inline, 12 turns)",
  "edit-fix": "editing chat: fix a bug and explain (code inline, 12 turns)",
};

/**
 * Whether a scenario sends both sides the same messages: `yes` for all of them but
 * e-incremental; d only until the context fills (then each side makes room its own way).
 */
export function scenarioEqualTerms(id: ScenarioId): "yes" | "until-full" | "no" {
  if (id === "e-incremental") return "no";
  return id === "d" ? "until-full" : "yes";
}

/** Scenarios whose turns and reply length are `--edit-turns` / `--edit-max-tokens`. */
export const usesEditSettings = (id: ScenarioId): boolean => id === "e" || id === "e-incremental" || isEditingChat(id);

export interface BenchChat {
  send(text: string, context?: string): Promise<TurnMeasure>;
  dispose(): Promise<void>;
}

export interface ScenarioSide {
  /** Opens a new chat (one panel). */
  open(chat: number): Promise<BenchChat>;
  /**
   * How the side attaches workspace context where a scenario lets it choose (only
   * e-incremental does): `incremental` sends only what changed (our context ledger), `whole`
   * attaches the whole current file to every message. Every other scenario attaches the whole
   * file on both sides.
   */
  readonly context: "incremental" | "whole";
  /** Counts tokens with the model's tokenizer (budgets of the incremental context). */
  countTokens(text: string): number;
}

export interface ScenarioRun {
  readonly turns: number;
  readonly log?: (line: string) => void;
}

const question = (i: number) => CODING_QUESTIONS[i % CODING_QUESTIONS.length];

async function withChats<T>(side: ScenarioSide, count: number, body: (chats: BenchChat[]) => Promise<T>): Promise<T> {
  const chats: BenchChat[] = [];
  try {
    for (let c = 0; c < count; c++) chats.push(await side.open(c));
    return await body(chats);
  } finally {
    for (const chat of chats) await chat.dispose();
  }
}

/** a and d: one chat; d differs only in the context size its side was opened with. */
function singleChat(side: ScenarioSide, run: ScenarioRun): Promise<TurnMeasure[]> {
  return withChats(side, 1, async ([chat]) => {
    const results: TurnMeasure[] = [];
    for (let i = 0; i < run.turns; i++) {
      results.push(await chat.send(question(i)));
      run.log?.(`turn ${i + 1}/${run.turns}`);
    }
    return results;
  });
}

/** b: two panels, used alternately; the second asks the questions in another order. */
function interleaved(side: ScenarioSide, run: ScenarioRun): Promise<TurnMeasure[]> {
  return withChats(side, 2, async (chats) => {
    const results: TurnMeasure[] = [];
    for (let i = 0; i < run.turns; i++) {
      const chat = i % 2;
      const k = Math.floor(i / 2);
      results.push(await chats[chat].send(question(chat === 0 ? k : CODING_QUESTIONS.length - 1 - k)));
      run.log?.(`turn ${i + 1}/${run.turns}`);
    }
    return results;
  });
}

/**
 * The same budgets as the extension's defaults (statefulChat.context.*), except where a
 * scenario's file is larger: e's module (~800 tokens) is sent whole, as the peer gets it, so
 * both sides see the same code to rewrite (a user raises context.maxTokensPerFile for that).
 */
function budget(side: ScenarioSide, wholeFileTokens = 512): ContextBudget {
  return { maxTokensPerTurn: Math.max(1024, wholeFileTokens), maxTokensPerItem: wholeFileTokens, countTokens: (t) => side.countTokens(t) };
}

function wholeFile(fileName: string, language: string, content: string): string {
  return `Context from the workspace:\n\n${fileName}:\n\`\`\`${language}\n${content}${content.endsWith("\n") ? "" : "\n"}\`\`\``;
}

/**
 * c and e: the file changes before each turn (c: the user edits it while asking about it;
 * e: the user applied the change the previous reply wrote); both sides get the whole file
 * every turn. With `incremental` (e-incremental), a side whose context is incremental sends
 * deltas instead.
 */
function editing(side: ScenarioSide, run: ScenarioRun, session: readonly WorkspaceTurn[], incremental: boolean, fileTokens?: number): Promise<TurnMeasure[]> {
  return withChats(side, 1, async ([chat]) => {
    const ledger = new ContextLedger();
    const results: TurnMeasure[] = [];
    for (const [i, turn] of session.entries()) {
      const item = { id: `file:${turn.fileName}`, kind: "file" as const, label: turn.fileName, content: turn.content, language: turn.language };
      if (incremental && side.context === "incremental") {
        const delta = ledger.delta([item], budget(side, fileTokens));
        results.push(await chat.send(turn.question, delta.text || undefined));
        delta.commit();
      } else {
        results.push(await chat.send(turn.question, wholeFile(turn.fileName, turn.language, turn.content)));
      }
      run.log?.(`turn ${i + 1}/${run.turns}`);
    }
    return results;
  });
}

export function runScenario(id: ScenarioId, side: ScenarioSide, run: ScenarioRun): Promise<TurnMeasure[]> {
  switch (id) {
    case "a":
    case "d":
      return singleChat(side, run);
    case "b":
      return interleaved(side, run);
    case "c":
      return editing(side, run, editingSession(run.turns), false);
    case "e":
      return editing(side, run, rewriteSession(run.turns), false, 2048);
    case "e-incremental":
      return editing(side, run, rewriteSession(run.turns), true, 2048);
    default:
      return inlineChat(side, run, editingChat(id, run.turns));
  }
}

/** The editing chats: one chat, the code inline in the user messages (no attached context). */
function inlineChat(side: ScenarioSide, run: ScenarioRun, messages: readonly string[]): Promise<TurnMeasure[]> {
  return withChats(side, 1, async ([chat]) => {
    const results: TurnMeasure[] = [];
    for (const [i, message] of messages.entries()) {
      results.push(await chat.send(message));
      run.log?.(`turn ${i + 1}/${messages.length}`);
    }
    return results;
  });
}
