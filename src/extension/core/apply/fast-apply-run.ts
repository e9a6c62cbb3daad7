// Fast apply on an engine: a side session of its own (its own KV state on the same engine,
// never a chat's ledger), one greedy reply to the fast-apply prompt, streamed to the caller,
// then read and checked. The reply is opened for the model with the code fence ("```ts\n"),
// so it starts copying the code at once instead of talking about it (small models do). Most
// of the reply is the original, which the prompt put in the cache: prompt lookup, when the
// engine does speculative decoding, drafts it from there and verifies it in batches.

import { ChatTemplate } from "../chat-template";
import type { Engine } from "../engine";
import { CancelledError } from "../errors";
import type { StopReason } from "../generation";
import { Session } from "../session";
import { speculationOf, TurnClock, type SpeculationStats } from "../stats";
import { StreamDecoder } from "../stream-decoder";
import { checkFastApply, FAST_APPLY_SYSTEM_PROMPT, fastApplyBudget, fastApplyPrompt, parseFastApplyReply, replyOpening, type FastApplyBudget, type FastApplyCheck, type FastApplyRequest, type ParsedReply } from "./fast-apply";

interface FastApplyStats {
  readonly promptTokens: number;
  readonly replyTokens: number;
  readonly stopReason: StopReason;
  readonly ttftMs: number;
  readonly decodeTokensPerSec: number;
  /** What speculative decoding did (undefined when the engine does none). */
  readonly speculation?: SpeculationStats;
}

export interface FastApplyRun {
  /** The reply as the model continued it, after the opening the prompt gave it. */
  readonly reply: string;
  readonly parsed: ParsedReply;
  readonly check: FastApplyCheck;
  readonly stats: FastApplyStats;
}

export interface FastApplyRunOptions {
  /** Called with the code so far after each streamed piece of the reply. */
  readonly onCode?: (code: string) => void;
  /** Stops the rewrite (CancelledError before the reply starts; a cut-off reply after). */
  readonly signal?: AbortSignal;
  /** Prefill chunk (cancel is honoured within one). */
  readonly prefillChunk?: number;
}

interface Prepared {
  readonly tokens: number[];
  readonly opening: string;
  readonly budget: FastApplyBudget;
}

function prepare(engine: Engine, request: FastApplyRequest): Prepared {
  const tokenizer = engine.tokenizer;
  const template = new ChatTemplate(engine.chatTemplate, { bosToken: tokenizer.bos?.text, eosToken: tokenizer.eosText, modelName: engine.info.modelName });
  const opening = replyOpening(request);
  const text = template.render([{ role: "system", content: FAST_APPLY_SYSTEM_PROMPT }, { role: "user", content: fastApplyPrompt(request) }], { addGenerationPrompt: true }) + opening;
  const tokens = tokenizer.encode(text, { specials: true });
  if (tokenizer.bos && !text.startsWith(tokenizer.bos.text)) tokens.unshift(tokenizer.bos.id);
  const count = (t: string) => tokenizer.encode(t, { specials: false }).length;
  const budget = fastApplyBudget({ promptTokens: tokens.length, regionTokens: count(request.original), codeTokens: count(request.code), capacity: engine.info.capacity, overhead: 0 });
  return { tokens, opening, budget };
}

/** Token figures of a fast apply before running it (whether it fits the engine's state). */
export function measureFastApply(engine: Engine, request: FastApplyRequest): { readonly budget: FastApplyBudget } {
  return { budget: prepare(engine, request).budget };
}

export async function runFastApply(engine: Engine, request: FastApplyRequest, options: FastApplyRunOptions = {}): Promise<FastApplyRun> {
  if (options.signal?.aborted) throw new CancelledError();
  const { tokens, opening, budget } = prepare(engine, request);

  const state = await engine.createState();
  const session = new Session(state, engine.tokenizer, options.prefillChunk ?? 128);
  // Stopped by the caller, or by us once the code block is closed (what follows it is talk).
  const stop = new AbortController();
  const abort = () => stop.abort();
  options.signal?.addEventListener("abort", abort);
  try {
    const clock = new TurnClock();
    await session.prefill(tokens, options.signal);
    const before = { ...session.counters };
    const decoder = new StreamDecoder(engine.tokenizer);
    const maxTokens = Math.max(1, Math.min(budget.maxTokens, session.capacity - session.position));
    let reply = "";
    let replyTokens = 0;
    let closed = false;
    for await (const token of session.generate({ maxTokens, sampling: { temperature: 0 } }, stop.signal)) {
      replyTokens++;
      clock.tokenArrived();
      const text = decoder.push(token);
      if (!text || closed) continue;
      reply += text;
      const parsed = parseFastApplyReply(opening + reply);
      options.onCode?.(parsed.code);
      if (parsed.settled && !options.signal?.aborted) {
        closed = true;
        stop.abort();
      }
    }
    reply += closed ? "" : decoder.flush();
    const stopReason = closed ? "eog" : (session.lastStopReason ?? "max_tokens");
    if (stopReason === "cancelled" && replyTokens === 0) throw new CancelledError();
    const parsed = parseFastApplyReply(opening + reply);
    return {
      reply,
      parsed,
      check: checkFastApply({ original: request.original, code: request.code, reply: parsed, stopReason }),
      stats: {
        promptTokens: tokens.length,
        replyTokens,
        stopReason,
        ttftMs: clock.ttftMs,
        decodeTokensPerSec: clock.decodeTokensPerSec,
        speculation: speculationOf(before, session.counters),
      },
    };
  } finally {
    options.signal?.removeEventListener("abort", abort);
    await session.dispose();
  }
}
