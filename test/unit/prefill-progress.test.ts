// A prefill's progress (Session.prefill's onProgress, PoolRequest.onPrefillProgress) on the
// engine test double: what the shell's "Reading the prompt: done / total" notification is fed.
// Counts start at 0, rise with each chunk, never pass the total and end at it; each count is
// what the state really holds by then; a request the cache already holds reports nothing.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChatTemplate } from "../../src/extension/core/chat-template";
import { CancelledError } from "../../src/extension/core/errors";
import { renderRequest } from "../../src/extension/core/request-pool/request-messages";
import { type RequestMessage } from "../../src/extension/core/request-pool/request-shape";
import { RequestPool } from "../../src/extension/core/request-pool/request-pool";
import { Session } from "../../src/extension/core/session";
import { ByteTokenizer, FakeEngine, HashState } from "../support/fake-engine";

const greedy = { temperature: 0 };

interface Report {
  readonly done: number;
  readonly total: number;
  /** Tokens the state had evaluated (beyond where the prefill started) when the report came. */
  readonly evaluated: number;
}

/** A progress listener that also notes what the state really held at each report. */
function recorder(state: { readonly evaluated: number }): { readonly reports: Report[]; readonly listen: (done: number, total: number) => void } {
  const start = state.evaluated;
  const reports: Report[] = [];
  return { reports, listen: (done, total) => reports.push({ done, total, evaluated: state.evaluated - start }) };
}

/** The shape every non-empty run of reports has. */
function assertWellFormed(reports: readonly Report[], chunk: number): void {
  assert.ok(reports.length >= 2, `at least a start and an end: ${JSON.stringify(reports)}`);
  const total = reports[0].total;
  assert.ok(reports.every((r) => r.total === total), "one total throughout");
  assert.equal(reports[0].done, 0, "the first report comes before any chunk");
  for (let i = 1; i < reports.length; i++) {
    const step = reports[i].done - reports[i - 1].done;
    assert.ok(step > 0 && step <= chunk, `report ${i} rises by one chunk at most (${step})`);
  }
  assert.equal(reports.at(-1)!.done, total, "ends at the total");
  for (const r of reports) assert.equal(r.done, r.evaluated, "each count is what the state holds");
}

for (const replyLoop of [false, true]) {
  const loop = replyLoop ? " (backend reply loop)" : "";

  describe(`Session.prefill progress${loop}`, () => {
    it("reports 0, then each chunk, ending at the tokens it evaluated (all but the held-back last chunk)", async () => {
      const state = new HashState(4096, 8, replyLoop);
      const session = new Session(state, new ByteTokenizer(), 16);
      const { reports, listen } = recorder(state);
      await session.prefill(new Array(1000).fill(97), undefined, listen);
      assertWellFormed(reports, 16);
      // 1000 tokens in chunks of 16: the last 8 stay pending for generate() to evaluate with its first sample.
      assert.equal(reports[0].total, 992);
      assert.equal(reports.length, 1 + 992 / 16);
      assert.equal(session.evaluated, 992);
    });

    it("counts a ledger the state lost (re-prefilled with the new tokens)", async () => {
      const state = new HashState(4096, 8, replyLoop);
      const session = new Session(state, new ByteTokenizer(), 16);
      await session.prefill(new Array(100).fill(97));
      await state.reset(); // the engine process restarted: the cache is gone, the ledger is not
      const { reports, listen } = recorder(state);
      await session.prefill(new Array(50).fill(98), undefined, listen);
      assertWellFormed(reports, 16);
      assert.equal(reports[0].total, 150 - (((150 - 1) % 16) + 1), "the lost 100 and the new 50, but the last chunk");
    });

    it("says nothing when there is nothing to evaluate, or only the held-back chunk", async () => {
      const state = new HashState(4096, 8, replyLoop);
      const session = new Session(state, new ByteTokenizer(), 16);
      const { reports, listen } = recorder(state);
      await session.prefill([], undefined, listen);
      await session.prefill(new Array(10).fill(97), undefined, listen);
      assert.deepEqual(reports, []);
    });

    it("stops at a cancel: no report after it, and the last one short of the total", async () => {
      const state = new HashState(4096, 8, replyLoop);
      const session = new Session(state, new ByteTokenizer(), 16);
      const controller = new AbortController();
      const { reports, listen } = recorder(state);
      await assert.rejects(
        session.prefill(new Array(200).fill(97), controller.signal, (done, total) => {
          listen(done, total);
          if (done === 48) controller.abort();
        }),
        CancelledError,
      );
      assert.deepEqual(
        reports.map((r) => r.done),
        [0, 16, 32, 48],
      );
      assert.ok(reports.at(-1)!.done < reports[0].total);
      assert.equal(session.position, 0, "rolled back as without a listener");
    });
  });

  describe(`RequestPool: onPrefillProgress${loop}`, () => {
    const engineAndPool = () => {
      const engine = new FakeEngine(8192, 12, undefined, replyLoop);
      return { engine, pool: new RequestPool(engine, { size: 2, prefillChunk: 64 }) };
    };
    const render = (engine: FakeEngine, messages: readonly RequestMessage[]) => renderRequest(new ChatTemplate(engine.chatTemplate), engine.tokenizer, messages).tokens;
    const longSystem: RequestMessage = { role: "system", content: "You are an agent with tools. ".repeat(100) };

    it("a first request reports its whole prefill; a follow-up only its new tokens; a repeat nothing", async () => {
      const { engine, pool } = engineAndPool();
      const messages: RequestMessage[] = [longSystem, { role: "user", content: "first question" }];
      const first: Array<[number, number]> = [];
      const reply1 = await pool.serve({ tokens: render(engine, messages), maxTokens: 16, sampling: greedy, onPrefillProgress: (d, t) => first.push([d, t]) }, () => undefined);
      const total1 = first[0][1];
      assert.deepEqual(first.at(-1), [total1, total1]);
      assert.ok(first.every(([d], i) => i === 0 || d > first[i - 1][0]), "monotonic");
      assert.ok(total1 <= reply1.prefilled && total1 > reply1.prefilled - 64, `the prefill's ${total1} of ${reply1.prefilled} (the last chunk is the reply's)`);

      messages.push({ role: "assistant", content: "an answer" }, { role: "user", content: "a follow-up question that is long enough to fill more than one chunk of sixty-four tokens" });
      const tokens2 = render(engine, messages);
      const second: Array<[number, number]> = [];
      const reply2 = await pool.serve({ tokens: tokens2, maxTokens: 16, sampling: greedy, onPrefillProgress: (d, t) => second.push([d, t]) }, () => undefined);
      assert.ok(reply2.cached > total1, "the follow-up was served from the cache");
      const total2 = second[0]?.[1] ?? 0;
      assert.ok(total2 <= reply2.prefilled && total2 > reply2.prefilled - 64, `only the new tokens: ${total2} of ${reply2.prefilled}`);
      if (total2 > 0) assert.deepEqual(second.at(-1), [total2, total2]);

      const repeat: Array<[number, number]> = [];
      const reply3 = await pool.serve({ tokens: tokens2, maxTokens: 16, sampling: greedy, onPrefillProgress: (d, t) => repeat.push([d, t]) }, () => undefined);
      // (Its last token is evaluated again to sample from: generate() holds it back.)
      assert.equal(reply3.cached, tokens2.length - 1, "a regenerate: the cache held the whole request");
      assert.deepEqual(repeat, [], "a fully cached request reports nothing");
    });
  });
}
