// Issue 12 on the real default model: any chat template is followed. Fixture models (the
// default GGUF with only its chat template replaced) chat for 10 greedy turns each; every
// turn answers, ledger == cache after every turn, `rewound` is 0 for templates that extend
// their previous render and bounded by the previous reply plus the template's own tokens for
// the others, and the whole chat prefills at most 0.3x what naive re-prefill would.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { LlamaEngine } from "../../src/extension/backends/llamacpp/llama-engine";
import type { HistoryRendering } from "../../src/extension/core/conversation-prompt";
import type { TurnStats } from "../../src/extension/core/stats";
import { createHarness } from "../support/core-harness";
import { fixtureModel } from "../support/fixture-models";
import type { FixtureName } from "../support/fixture-templates";
import {
  freshDistributionAt,
  greedyFromFresh,
  greedyFromState,
  InstrumentedEngine,
  topGap,
  type InstrumentedState,
} from "../support/instrumented-engine";
import { testThreads } from "../support/test-threads";

const SCRIPT = [
  "Write a Python function that returns the square of a number.",
  "Now add a docstring to it.",
  "What does the ** operator do in Python?",
  "Give me a one-line lambda version.",
  "How do I print the result?",
  "What is a list comprehension?",
  "Square every number in a list with one.",
  "How do I sort that list in reverse?",
  "What is 2 + 2?",
  "Thanks, that is all.",
];
/** Template tokens a turn may re-render besides the previous reply (headers, an empty think block). */
const TEMPLATE_TOKENS = 16;
/** See core-invariants.test.ts: batched and incremental logits differ in the last bits. */
const NEAR_TIE = 0.1;
const GREEDY_STEPS = 4;

interface Measured {
  readonly stats: TurnStats[];
  readonly prefilled: number;
  readonly naive: number;
}

const engines: InstrumentedEngine[] = [];
after(async () => {
  for (const engine of engines) await engine.dispose();
});

async function converse(fixture: FixtureName, history: HistoryRendering): Promise<Measured> {
  const engine = new InstrumentedEngine(await LlamaEngine.load({ modelPath: fixtureModel(fixture), contextSize: 2048, threads: 1 }));
  engines.push(engine);
  const harness = await createHarness(engine, { maxTokens: 40, history });
  const inner = (harness.state as InstrumentedState).inner;
  const stats: TurnStats[] = [];
  for (const text of SCRIPT) {
    const s = await harness.runner.run({ text }, new AbortController().signal);
    stats.push(s);
    assert.ok(s.replyTokens > 0, `${fixture} turn ${s.turn} answered`);
    // Ledger == cache: greedy from the session equals greedy from a fresh prefill of the ledger.
    const ledger = [...harness.session.tokens];
    assert.equal(harness.state.length, ledger.length, `${fixture} turn ${s.turn}: every ledger token is in the cache`);
    // Compared for GREEDY_STEPS tokens, up to the first end-of-generation token (nothing ever
    // decodes past it). Longer horizons compound the batch-vs-single-token kernel differences
    // of the native threadpool build into flips that are not ledger/cache mismatches.
    const fromSession = await greedyFromState(inner, ledger, GREEDY_STEPS);
    const fromFresh = await greedyFromFresh(engine, ledger, GREEDY_STEPS);
    const end = fromFresh.findIndex((t) => engine.tokenizer.isEndOfGeneration(t));
    const compared = end < 0 ? fromFresh.length : end + 1;
    let j = 0;
    while (j < compared && fromSession[j] === fromFresh[j]) j++;
    if (j < compared) {
      const at = await freshDistributionAt(engine, [...ledger, ...fromFresh.slice(0, j)]);
      assert.ok(topGap(at) < NEAR_TIE, `${fixture} turn ${s.turn}: diverged at token ${j} without a near-tie`);
    }
  }
  await harness.session.dispose();
  const prefilled = stats.reduce((sum, s) => sum + s.prefilled, 0);
  const naive = stats.reduce((sum, s) => sum + s.position - s.replyTokens, 0);
  console.log(
    `# ${fixture} (${history}): rewound per turn [${stats.map((s) => s.rewound).join(", ")}], ` +
      `prefilled ${prefilled} vs naive ${naive} (${(prefilled / naive).toFixed(3)}x)`,
  );
  return { stats, prefilled, naive };
}

function assertBounded(fixture: string, { stats, prefilled, naive }: Measured, exactZero: boolean): void {
  for (let i = 0; i < stats.length; i++) {
    if (exactZero || i === 0) assert.equal(stats[i].rewound, 0, `${fixture} turn ${i + 1}`);
    else {
      const bound = stats[i - 1].replyTokens + TEMPLATE_TOKENS;
      assert.ok(stats[i].rewound <= bound, `${fixture} turn ${i + 1}: rewound ${stats[i].rewound} > ${bound}`);
    }
  }
  assert.ok(prefilled <= 0.3 * naive, `${fixture}: prefilled ${prefilled} > 0.3 x naive ${naive}`);
}

// Each chat has its own engine on one thread, so two run at a time on the two cores the suite
// is sized for (CI time; the checks are per chat and independent of timing); one at a time
// when the suite runs on one thread (STATEFUL_CHAT_TEST_THREADS=1).
describe("any chat template, on the real default model (10 greedy turns each)", { concurrency: testThreads() }, () => {
  it("plain ChatML: append-only, rewound 0 on every turn", async () => {
    assertBounded("chatml", await converse("chatml", "template"), true);
  });

  it("a fixed date line in the system prompt: rewound 0 on every turn", async () => {
    assertBounded("fixed-date-line", await converse("fixed-date-line", "template"), true);
  });

  it("a template that drops earlier thoughts: rewinds within the previous reply, every turn answers", async () => {
    const measured = await converse("thoughts-dropping", "template");
    assertBounded("thoughts-dropping", measured, false);
    assert.ok(measured.stats.slice(1).every((s) => s.rewound > 0), "the empty think block of the previous prompt is taken back");
  });

  it("a template that moves the system prompt into the last user message: bounded rewinds", async () => {
    assertBounded("system-in-last-user", await converse("system-in-last-user", "template"), false);
  });

  it("asGenerated on the thoughts-dropping template: rewound 0 on every turn", async () => {
    assertBounded("thoughts-dropping/asGenerated", await converse("thoughts-dropping", "asGenerated"), true);
  });
});
