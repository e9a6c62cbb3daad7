import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChatTemplate, commonPrefixLength } from "../../src/extension/core/chat-template";
import { TemplateNotAppendOnlyError } from "../../src/extension/core/errors";

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

  it("commonPrefixLength finds the first difference", () => {
    assert.equal(commonPrefixLength("abc", "abcdef"), 3);
    assert.equal(commonPrefixLength("abc", "abXdef"), 2);
    assert.equal(commonPrefixLength("", "x"), 0);
  });

  it("a template that does not parse or render is a typed error that says what to do", () => {
    assert.throws(() => new ChatTemplate("{% for m in messages %}"), TemplateNotAppendOnlyError);
    const t = new ChatTemplate("{{ raise_exception('System role not supported') }}");
    assert.throws(() => t.render([{ role: "user", content: "hi" }], { addGenerationPrompt: true }), /cannot render this conversation/);
  });
});
