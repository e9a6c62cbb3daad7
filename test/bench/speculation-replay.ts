// `node --import tsx test/bench/speculation-replay.ts --results bench-results/peer-bench.json
//   [--model PATH] [--config ours:off] [--cost test/bench/results/verify-cost-curve.md]
//   [--max-draft 16] [--switch-cost 0]`
// Replays the replies a peer-bench run recorded (their token ids) through draft policies
// offline: a greedy reply does not depend on speculation, so how many verify steps and plain
// decodes a policy would spend on it, and so its speed relative to `off`, follows from the
// reply, the conversation before it and a verify-cost curve alone. Seconds per policy instead
// of ten minutes of a real bench, for tuning; the bench on the real model stays the figure
// that counts. Policies: ours `auto` and `lookup` (the real DraftPolicy and TokenMirror) and
// an emulation of llama-server's `ngram-mod` (a 24-token context → next token table, drafts of
// 48–64 only), all on the same cost curve, beside an oracle that knows how much of each of
// our lookup drafts the reply accepts.
//
// The conversation's tokens are rebuilt as each user message in Qwen's ChatML markers, then the
// recorded reply: close to the ledger, not equal to it (the system prompt is left out).

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { loadEngine } from "../../src/extension/backends/load-engine";
import { DraftPolicy, type DraftSource } from "../../src/extension/core/speculation/draft-policy";
import { TokenMirror } from "../../src/extension/core/speculation/token-mirror";
import type { VerifyCost } from "../../src/extension/core/speculation/verify-cost";
import { CODING_QUESTIONS } from "../../src/tools/peer-bench/coding-questions";
import { editingChat, EDITING_CHAT_IDS, type EditingChatId } from "../../src/tools/peer-bench/editing-chats";

const { values } = parseArgs({
  options: {
    results: { type: "string", default: "bench-results/peer-bench.json" },
    model: { type: "string", default: ".cache/bench-models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" },
    config: { type: "string", default: "ours:off" },
    cost: { type: "string", default: "test/bench/results/verify-cost-curve.md" },
    "max-draft": { type: "string", default: "16" },
    /** Decodes lost each time the backend's plain loop is started again after a verify step. */
    "switch-cost": { type: "string", default: "0" },
  },
});

interface RecordedTurn {
  readonly turn: number;
  readonly replyTokenIds?: number[];
}
interface RecordedRun {
  readonly label: string;
  readonly repeat: number;
  readonly turns: RecordedTurn[];
}
interface RecordedScenario {
  readonly id: string;
  readonly runs: RecordedRun[];
}

/** The curve's "÷ ours decode" column, extended past its last row at the slope of its last 8 rows. */
function readCost(path: string, upTo: number): number[] {
  const rows = readFileSync(path, "utf8")
    .split("\n")
    .map((line) => line.split("|").map((cell) => cell.trim()))
    .filter((cells) => /^\d+$/.test(cells[1] ?? ""))
    .map((cells) => [Number(cells[1]), Number(cells[3])] as const);
  const relative = [1, ...rows.map(([, cost]) => cost)];
  const last = rows.length;
  const slope = (relative[last] - relative[Math.max(1, last - 8)]) / Math.min(8, last - 1);
  for (let k = last + 1; k <= upTo; k++) relative.push(relative[last] + slope * (k - last));
  return relative;
}

/** What a policy spends on one reply after its prompt, in plain decodes. */
type Policy = (prompt: readonly number[], reply: readonly number[]) => number;

/** Ours: the real policy and mirror; `gate` is `auto`, without it `lookup`. */
function ours(cost: VerifyCost, gate: boolean, maxDraft: number, switchCost: number): Policy {
  const draftPolicy = new DraftPolicy(cost, { maxDraft, gate });
  const mirror = new TokenMirror();
  return (prompt, reply) => {
    mirror.append(prompt);
    draftPolicy.newReply();
    let spent = 0;
    // reply[0] comes from the prompt's prefill; each step after it starts from the last emitted token.
    let at = 1;
    let looping = false;
    while (at < reply.length) {
      const last = reply[at - 1];
      const room = reply.length - at;
      const match = mirror.match([last], room);
      const source: DraftSource = { kind: "lookup", matchLength: match.matchLength };
      const k = match.tokens.length > 0 ? draftPolicy.draftLength(source, match.tokens.length) : 0;
      if (k === 0) {
        draftPolicy.recordPlain(1, 1);
        mirror.append([last]);
        spent += 1 + (looping ? 0 : switchCost);
        looping = true;
        at++;
        continue;
      }
      looping = false;
      const draft = match.tokens.slice(0, k);
      let agreed = 0;
      while (agreed < k && at + agreed < reply.length && draft[agreed] === reply[at + agreed]) agreed++;
      const c = cost.relative[k];
      draftPolicy.record(source, k, agreed, c);
      spent += c;
      const emitted = Math.min(agreed + 1, reply.length - at);
      mirror.append([last, ...reply.slice(at, at + emitted - 1)]);
      at += emitted;
    }
    mirror.append([reply[reply.length - 1]]);
    return spent;
  };
}

/** The bound for ours' drafter: knows how much of each lookup draft the reply will accept and picks the best length. */
function oracle(cost: readonly number[], maxDraft: number): Policy {
  const mirror = new TokenMirror();
  return (prompt, reply) => {
    mirror.append(prompt);
    let spent = 0;
    let at = 1;
    while (at < reply.length) {
      const last = reply[at - 1];
      const match = mirror.match([last], Math.min(maxDraft, reply.length - at));
      let agreeable = 0;
      while (agreeable < match.tokens.length && match.tokens[agreeable] === reply[at + agreeable]) agreeable++;
      let best = 0;
      let bestGain = 1;
      for (let k = 1; k <= match.tokens.length; k++) {
        const gain = (Math.min(k, agreeable) + 1) / cost[k];
        if (gain > bestGain) [best, bestGain] = [k, gain];
      }
      if (best === 0) {
        mirror.append([last]);
        spent += 1;
        at++;
        continue;
      }
      spent += cost[best];
      const emitted = Math.min(Math.min(best, agreeable) + 1, reply.length - at);
      mirror.append([last, ...reply.slice(at, at + emitted - 1)]);
      at += emitted;
    }
    mirror.append([reply[reply.length - 1]]);
    return spent;
  };
}

/** llama-server's ngram-mod as its source reads: 24 tokens → the next one, a draft only when the chain reaches 48, at most 64. */
function ngramMod(cost: readonly number[]): Policy {
  const N = 24;
  const MIN = 48;
  const MAX = 64;
  const table = new Map<string, number>();
  const history: number[] = [];
  let indexed = 0;
  const key = (tokens: readonly number[], end: number) => tokens.slice(end - N, end).join(",");
  const index = () => {
    for (; indexed + N < history.length; indexed++) table.set(key(history, indexed + N), history[indexed + N]);
  };
  return (prompt, reply) => {
    history.push(...prompt);
    index();
    let spent = 0;
    let at = 1;
    while (at < reply.length) {
      history.push(reply[at - 1]);
      index();
      const context = history.slice(-N);
      const draft: number[] = [];
      while (draft.length < MAX) {
        const next = table.get(key([...context, ...draft], context.length + draft.length));
        if (next === undefined) break;
        draft.push(next);
      }
      if (draft.length < MIN) {
        spent += 1;
        at++;
        continue;
      }
      let agreed = 0;
      while (agreed < draft.length && at + agreed < reply.length && draft[agreed] === reply[at + agreed]) agreed++;
      spent += cost[draft.length];
      const emitted = Math.min(agreed + 1, reply.length - at);
      history.push(...reply.slice(at, at + emitted - 1));
      at += emitted;
    }
    history.push(reply[reply.length - 1]);
    return spent;
  };
}

async function main(): Promise<void> {
  const results = JSON.parse(readFileSync(values.results!, "utf8")) as { scenarios: RecordedScenario[] };
  const maxDraft = Number(values["max-draft"]);
  const switchCost = Number(values["switch-cost"]);
  const relative = readCost(values.cost!, 64);
  const cost: VerifyCost = { relative: relative.slice(0, maxDraft + 1) };
  const { engine } = await loadEngine({ modelPath: values.model!, backend: "llamacpp", contextSize: 1024, threads: 1, speculative: "off" });
  const encode = (text: string) => engine.tokenizer.encode(text, { specials: true });
  console.log(`cost curve: ${values.cost} (batch of 16: ${relative[16].toFixed(2)} decodes, of 64: ${relative[64].toFixed(2)})`);
  console.log("| scenario | turns | reply tokens | auto | lookup | ngram-mod (emulated) | oracle lookup |");
  console.log("|---|---|---|---|---|---|---|");
  for (const scenario of results.scenarios) {
    const editing = (EDITING_CHAT_IDS as readonly string[]).includes(scenario.id);
    if (!editing && scenario.id !== "a") continue;
    const run = scenario.runs.find((r) => r.label === values.config && r.repeat === 1);
    if (!run) continue;
    const messages = editing ? editingChat(scenario.id as EditingChatId, run.turns.length) : Array.from({ length: run.turns.length }, (_, i) => CODING_QUESTIONS[i % CODING_QUESTIONS.length]);
    const policies = { auto: ours(cost, true, maxDraft, switchCost), lookup: ours(cost, false, maxDraft, switchCost), ngramMod: ngramMod(relative), oracle: oracle(relative, maxDraft) };
    const totals = Object.fromEntries(Object.keys(policies).map((name) => [name, 0])) as Record<keyof typeof policies, number>;
    let tokens = 0;
    for (const [i, turn] of run.turns.entries()) {
      const reply = turn.replyTokenIds ?? [];
      if (reply.length < 2) continue;
      const prompt = encode(`<|im_start|>user\n${messages[i]}<|im_end|>\n<|im_start|>assistant\n`);
      tokens += reply.length - 1;
      for (const [name, policy] of Object.entries(policies)) totals[name as keyof typeof policies] += policy(prompt, reply);
    }
    const speed = (name: keyof typeof policies) => `${(tokens / totals[name]).toFixed(2)}×`;
    console.log(`| ${scenario.id} | ${run.turns.length} | ${tokens} | ${speed("auto")} | ${speed("lookup")} | ${speed("ngramMod")} | ${speed("oracle")} |`);
  }
  await engine.dispose();
}

void main();
