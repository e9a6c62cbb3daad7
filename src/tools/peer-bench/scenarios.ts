// The five scenarios of the peer bench, written once against a side-neutral chat so that
// ours and llama-server replay exactly the same conversation.

import { ContextLedger, type ContextBudget } from "../../extension/core/context-delta";
import { CODING_QUESTIONS } from "./coding-questions";
import { rewriteSession } from "./rewrite-requests";
import { editingSession, type WorkspaceTurn } from "./editing-workspace";
import type { TurnMeasure } from "./turn-measure";

export const SCENARIO_IDS = ["a", "b", "c", "d", "e"] as const;
export type ScenarioId = (typeof SCENARIO_IDS)[number];
export const isScenarioId = (value: string): value is ScenarioId => (SCENARIO_IDS as readonly string[]).includes(value);

export const SCENARIO_TITLES: Record<ScenarioId, string> = {
  a: "one chat, coding questions",
  b: "two chats interleaved turn by turn",
  c: "editing session, the current file changes between turns",
  d: "a long chat past the context size",
  e: "editing chat, each reply rewrites a function of the attached file with a small change",
};

export interface BenchChat {
  send(text: string, context?: string): Promise<TurnMeasure>;
  dispose(): Promise<void>;
}

export interface ScenarioSide {
  /** Opens a new chat (one panel). */
  open(chat: number): Promise<BenchChat>;
  /**
   * How the side attaches workspace context: `incremental` sends only what changed
   * (our context ledger), `whole` attaches the whole current file to every message.
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
 * e: the user applied the change the previous reply wrote); ours sends deltas, the peer the
 * whole file.
 */
function editing(side: ScenarioSide, run: ScenarioRun, session: readonly WorkspaceTurn[], fileTokens?: number): Promise<TurnMeasure[]> {
  return withChats(side, 1, async ([chat]) => {
    const ledger = new ContextLedger();
    const results: TurnMeasure[] = [];
    for (const [i, turn] of session.entries()) {
      const item = { id: `file:${turn.fileName}`, kind: "file" as const, label: turn.fileName, content: turn.content, language: turn.language };
      if (side.context === "incremental") {
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
      return editing(side, run, editingSession(run.turns));
    case "e":
      return editing(side, run, rewriteSession(run.turns), 2048);
  }
}
