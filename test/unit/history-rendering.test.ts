// Invariant 2 on the engine test double: append-only when the template allows, otherwise
// rewind to the first difference, never further; `asGenerated` never rewinds. The fake
// state's cache is compared with the ledger directly (ledger == cache).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChatTemplate } from "../../src/extension/core/chat-template";
import { Conversation } from "../../src/extension/core/conversation";
import type { HistoryRendering } from "../../src/extension/core/conversation-prompt";
import { EngineFailedError, TemplateNotAppendOnlyError } from "../../src/extension/core/errors";
import type { TurnStats } from "../../src/extension/core/stats";
import { ByteTokenizer, FakeEngine } from "../support/fake-engine";
import { CHATML, FIXED_DATE_LINE, SYSTEM_IN_LAST_USER, THOUGHTS_DROPPING } from "../support/fixture-templates";

const SCRIPT = ["first question", "second one", "and a third", "fourth", "fifth and last"];
const GENERATION_PROMPT = "<|im_start|>assistant\n<think>\n\n</think>\n\n";

async function chat(template: string, history: HistoryRendering = "template") {
  const engine = new FakeEngine(4096, 8, template);
  const conversation = await Conversation.create(engine, { turn: { systemPrompt: "Be brief.", history } });
  const stats: TurnStats[] = [];
  for (const text of SCRIPT) {
    stats.push(await conversation.send({ text }));
    assert.deepEqual(engine.states[0].cache, [...conversation.ledger], `turn ${stats.length}: ledger == cache`);
  }
  return { engine, conversation, stats };
}

describe("history rendering: rewind to the first difference", () => {
  for (const [name, template] of [["ChatML", CHATML], ["a fixed date line", FIXED_DATE_LINE]] as const) {
    it(`${name}: every turn appends, nothing is rewound`, async () => {
      const { conversation, stats } = await chat(template);
      for (const s of stats) assert.equal(s.rewound, 0);
      for (const s of stats.slice(1)) assert.equal(s.cached + s.prefilled + s.replyTokens, s.position);
      await conversation.dispose();
    });
  }

  it("a template that drops thoughts: rewinds to the first differing token, within the previous reply and its header", async () => {
    const { conversation, stats } = await chat(THOUGHTS_DROPPING);
    assert.equal(stats[0].rewound, 0);
    for (let i = 1; i < stats.length; i++) {
      const bound = stats[i - 1].replyTokens + new ByteTokenizer().encode(GENERATION_PROMPT, { specials: true }).length;
      assert.ok(stats[i].rewound > 0, `turn ${i + 1} rewound`);
      assert.ok(stats[i].rewound <= bound, `turn ${i + 1}: rewound ${stats[i].rewound} <= ${bound}`);
      assert.equal(stats[i].rewound, bound - "<|im_start|>assistant\n".length, "rewound exactly the empty think block and the reply");
    }
    // The ledger is exactly the template's rendering of the conversation plus the last reply.
    const template = new ChatTemplate(THOUGHTS_DROPPING);
    const history = conversation.messages.slice(0, -1);
    const text = template.render(history, { addGenerationPrompt: true }) + conversation.messages.at(-1)!.content;
    assert.equal(new ByteTokenizer().decode([...conversation.ledger]), text);
    await conversation.dispose();
  });

  it("asGenerated: the same template never rewinds and prefills only new tokens", async () => {
    const { conversation, stats } = await chat(THOUGHTS_DROPPING, "asGenerated");
    for (const s of stats) assert.equal(s.rewound, 0);
    for (const s of stats.slice(1)) assert.equal(s.cached + s.prefilled + s.replyTokens, s.position);
    assert.ok(new ByteTokenizer().decode([...conversation.ledger]).split("<think>").length - 1 === SCRIPT.length, "every think block stays");
    await conversation.dispose();
  });

  it("a template that moves the system prompt into the last user message keeps the older history cached", async () => {
    const { conversation, stats } = await chat(SYSTEM_IN_LAST_USER);
    for (const s of stats) assert.equal(s.rewound, 0);
    const text = new ByteTokenizer().decode([...conversation.ledger]);
    assert.equal(text.split("Be brief.").length - 1, SCRIPT.length, "each new turn carries the system prompt, as the template renders it");
    await conversation.dispose();
  });

  it("a template that shows only the latest message is followed by rewinding, not refused", async () => {
    const engine = new FakeEngine(4096, 5, "{{ messages[-1]['content'] }}{% if add_generation_prompt %}>>{% endif %}");
    const conversation = await Conversation.create(engine, { turn: { systemPrompt: "" } });
    const first = await conversation.send({ text: "first" });
    const second = await conversation.send({ text: "second" });
    assert.equal(second.rewound, first.position);
    assert.ok(new ByteTokenizer().decode([...conversation.ledger]).startsWith("second>>"));
    assert.deepEqual(engine.states[0].cache, [...conversation.ledger]);
    await conversation.dispose();
  });

  it("a failed turn after a rewind puts the rewound tokens back: the next turn sees the same conversation", async () => {
    const engine = new FakeEngine(4096, 8, THOUGHTS_DROPPING);
    const conversation = await Conversation.create(engine, { turn: { systemPrompt: "" } });
    await conversation.send({ text: "one" });
    const before = [...conversation.ledger];
    engine.states[0].beforeEvaluate = () => {
      throw new EngineFailedError("boom");
    };
    await assert.rejects(conversation.send({ text: "two" }), EngineFailedError);
    assert.deepEqual([...conversation.ledger], before, "ledger as before the failed turn");
    engine.states[0].beforeEvaluate = undefined;
    const next = await conversation.send({ text: "two" });
    assert.equal(next.turn, 2);
    assert.deepEqual(engine.states[0].cache, [...conversation.ledger]);
    await conversation.dispose();
  });

  it("a template that fails to render is reported as template_not_append_only, with what to do", async () => {
    const engine = new FakeEngine(4096, 5, "{{ raise_exception('no system role') if messages[0]['role'] == 'user' else '' }}{{ messages[5]['content'] }}");
    const conversation = await Conversation.create(engine, { turn: { systemPrompt: "" } });
    const error = await conversation.send({ text: "hi" }).catch((e: unknown) => e);
    assert.ok(error instanceof TemplateNotAppendOnlyError, String(error));
    assert.match(error.message, /Pick another model/);
    assert.equal(conversation.position, 0, "nothing prefilled");
    await conversation.dispose();
  });

  for (const history of ["template", "asGenerated"] as const) {
    it(`overflow (summarize and truncate) with a thoughts-dropping template, ${history}: no error, ledger == cache`, async () => {
      for (const overflow of ["summarize", "truncate"] as const) {
        const engine = new FakeEngine(512, 20, THOUGHTS_DROPPING);
        const conversation = await Conversation.create(engine, { turn: { maxTokens: 40, systemPrompt: "s", history, overflow } });
        let overflows = 0;
        for (let i = 0; i < 24; i++) {
          const stats = await conversation.send({ text: `message number ${i} with some words` }, { onOverflow: () => overflows++ });
          assert.ok(stats.position <= stats.capacity);
          if (history === "asGenerated") assert.equal(stats.rewound, 0);
          assert.deepEqual(engine.states[0].cache, [...conversation.ledger], `${overflow} turn ${i + 1}: ledger == cache`);
        }
        assert.ok(overflows >= 2, `${overflow}: overflows ${overflows}`);
        await conversation.dispose();
      }
    });
  }

  it("restore follows the same rule: asGenerated replays the replies as they were, template renders them", async () => {
    const transcript = [
      { role: "user", content: "q1" },
      { role: "assistant", content: "a1" },
      { role: "user", content: "q2" },
      { role: "assistant", content: "a2" },
    ] as const;
    for (const history of ["template", "asGenerated"] as const) {
      const engine = new FakeEngine(4096, 8, THOUGHTS_DROPPING);
      const conversation = await Conversation.create(engine, { turn: { systemPrompt: "", history } });
      await conversation.restoreFromMessages(transcript);
      const text = new ByteTokenizer().decode([...conversation.ledger]);
      assert.equal(text.includes("<think>"), history === "asGenerated", history);
      const next = await conversation.send({ text: "q3" });
      if (history === "asGenerated") assert.equal(next.rewound, 0);
      assert.deepEqual(engine.states[0].cache, [...conversation.ledger]);
      await conversation.dispose();
    }
  });
});
