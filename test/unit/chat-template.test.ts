import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { appendOnlySuffix, ChatTemplate } from "../../src/extension/core/chat-template";
import { ChatSession } from "../../src/extension/core/chat-session";
import { TemplateNotAppendOnlyError } from "../../src/extension/core/errors";
import { FakeEngine } from "../support/fake-engine";

describe("chat template", () => {
  it("renders a ChatML template with a real Jinja implementation", () => {
    const t = new ChatTemplate(
      "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
    );
    assert.equal(
      t.render([{ role: "user", content: "hi" }], { addGenerationPrompt: true }),
      "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
    );
  });

  it("appendOnlySuffix returns the new tail and refuses a rewrite", () => {
    assert.equal(appendOnlySuffix("abc", "abcdef"), "def");
    assert.throws(() => appendOnlySuffix("abc", "abXdef"), TemplateNotAppendOnlyError);
  });

  it("a template that rewrites earlier turns is detected and reported, not re-prefilled", async () => {
    // Renders only the latest user message: turn 2 is not an extension of turn 1.
    const engine = new FakeEngine(4096, 5, "{{ messages[-1]['content'] }}{% if add_generation_prompt %}>>{% endif %}");
    const chat = await ChatSession.create(engine, { turn: { systemPrompt: "" } });
    await chat.send({ text: "first" });
    const before = [...chat.ledger];
    const evaluatedBefore = engine.states[0].evaluated;
    await assert.rejects(chat.send({ text: "second" }), TemplateNotAppendOnlyError);
    assert.deepEqual([...chat.ledger], before, "ledger untouched");
    assert.equal(engine.states[0].evaluated, evaluatedBefore, "nothing was prefilled");
    await chat.dispose();
  });
});
