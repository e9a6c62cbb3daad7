// Issue 39 item 1: a model's chat template is code from a model file. It renders in the
// template sandbox (a worker the host waits on for at most a time limit, with bounds on what one
// step may allocate), so a hostile or broken template ends in a clear error naming the model
// instead of hanging or killing the host. Before the sandbox, `range(10**9)` killed the process
// (V8's fatal "invalid size error") and a nested loop blocked it for minutes.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ChatTemplate } from "../../src/extension/core/chat-template";
import { TemplateNotAppendOnlyError, TemplateStoppedError } from "../../src/extension/core/errors";
import { DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "../../src/extension/core/template-sandbox/sandbox-limits";
import { TemplateSandbox } from "../../src/extension/core/template-sandbox/template-sandbox";
import { CHATML } from "../support/fixture-templates";
import { templateWorkerFromSource } from "../support/template-worker-build";

const LIMITS: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, timeMs: 1_000 };
const sandbox = new TemplateSandbox(LIMITS, templateWorkerFromSource());
after(() => sandbox.dispose());

const CONVERSATION = [
  { role: "system", content: "You are helpful." },
  { role: "user", content: "Hi" },
] as const;

function template(source: string): ChatTemplate {
  return new ChatTemplate(source, { sandbox, modelName: "hostile.gguf" });
}

/** The host is usable after a stopped template: a real template renders as before. */
function assertHostUsable(): void {
  assert.equal(
    template(CHATML).render(CONVERSATION, { addGenerationPrompt: true }),
    "<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n",
  );
}

/**
 * The longest the host may wait for one call: the template's time, plus a worker's start when
 * the last one was ended. A bound on hanging, not a speed claim.
 */
const HOST_BOUND_MS = LIMITS.timeMs + LIMITS.startMs;

function assertStopped(source: string, detail: RegExp): void {
  const started = Date.now();
  assert.throws(
    () => template(source).render(CONVERSATION, { addGenerationPrompt: true }),
    (error: unknown) => {
      assert.ok(error instanceof TemplateStoppedError, String(error));
      assert.equal(error.code, "template_not_append_only");
      assert.match(error.message, /hostile\.gguf/);
      assert.match(error.message, detail);
      return true;
    },
  );
  assert.ok(Date.now() - started < HOST_BOUND_MS, "the host waited past the sandbox's bound");
  assertHostUsable();
}

describe("template sandbox", () => {
  it("renders real templates as @huggingface/jinja does, the same text every time", () => {
    assertHostUsable();
    assertHostUsable();
  });

  it("a loop without end is stopped at the time limit and its worker ended", () => {
    const ended = sandbox.workersEnded;
    assertStopped("{% for i in range(99999) %}{% for j in range(99999) %}{{ '' }}{% endfor %}{% endfor %}", /ran past the 1000 ms/);
    assert.equal(sandbox.workersEnded, ended + 1);
  });

  it("range(10**9) is refused before it allocates (it aborted the process before)", () => {
    assertStopped("{% for i in range(10**9) %}{% endfor %}", /range\(\) of 1000000000 numbers/);
  });

  it("a string doubled in a loop is refused at the size limit", () => {
    assertStopped("{% set s = 'x' %}{% for i in range(40) %}{% set s = s ~ s %}{% endfor %}{{ s }}", /a string of \d+ characters/);
  });

  it("a list grown past the limit is refused", () => {
    assertStopped("{% set ns = namespace(l=[]) %}{% for i in range(99999) %}{% set ns.l = ns.l + [i, i] %}{% endfor %}{{ ns.l | length }}", /a list of \d+ items|ran past/);
  });

  it("deep nesting is refused as an error, not a crashed host", () => {
    const deep = "{{ " + "(".repeat(20_000) + "1" + ")".repeat(20_000) + " }}";
    assert.throws(() => template(deep).render(CONVERSATION, { addGenerationPrompt: true }), TemplateNotAppendOnlyError);
    assertHostUsable();
  });

  it("a template's own error stays a template error (not a stop), with the model's name", () => {
    assert.throws(
      () => template("{{ raise_exception('System role not supported') }}").render(CONVERSATION, { addGenerationPrompt: true }),
      (error: unknown) => error instanceof TemplateNotAppendOnlyError && !(error instanceof TemplateStoppedError) && /System role not supported/.test(error.message) && /hostile\.gguf/.test(error.message),
    );
    assert.throws(() => template("{% for x in %}"), /does not parse/);
  });

  it("probe() refuses a template that is stopped on the first message, and keeps others", () => {
    assert.throws(() => template("{% for i in range(10**9) %}{% endfor %}").probe(), TemplateStoppedError);
    template("{% if messages[0].role == 'system' %}{{ raise_exception('no system') }}{% endif %}").probe();
    template(CHATML).probe();
  });

  // Random compositions of hostile constructs (seeded, so a failure repeats): each call ends in
  // text or a template error within the bound, and the host stays usable after every one.
  it("fuzz: 40 seeded hostile templates never hang or break the host", () => {
    let seed = 39;
    const next = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const parts = [
      () => `{% for i in range(${10 ** (3 + next(7))}) %}{{ i }}{% endfor %}`,
      () => `{% set s = '${"ab".repeat(1 + next(9))}' %}{% for i in range(${20 + next(20)}) %}{% set s = s ~ s %}{% endfor %}{{ s | length }}`,
      () => `{{ '${"z".repeat(1 + next(5))}' * ${10 ** (2 + next(8))} }}`,
      () => "{{ " + "[".repeat(100 + next(5_000)) + "1" + "]".repeat(100 + next(5_000)) + " }}",
      () => `{% for m in messages %}{% for j in range(${10 ** (2 + next(4))}) %}{{ m.content }}{% endfor %}{% endfor %}`,
      () => `{{ messages | tojson(indent=${next(3) ? 2 : 100_000_000}) }}`,
      () => "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}",
    ];
    const outcomes = { rendered: 0, stopped: 0, failed: 0 };
    for (let round = 0; round < 40; round++) {
      const source = Array.from({ length: 1 + next(3) }, () => parts[next(parts.length)]()).join("");
      const started = Date.now();
      try {
        template(source).render(CONVERSATION, { addGenerationPrompt: true });
        outcomes.rendered++;
      } catch (error) {
        assert.ok(error instanceof TemplateNotAppendOnlyError, `round ${round}: ${String(error)}`);
        outcomes[error instanceof TemplateStoppedError ? "stopped" : "failed"]++;
      }
      assert.ok(Date.now() - started < HOST_BOUND_MS, `round ${round}: the host waited past the bound`);
    }
    // The seeds make both kinds: harmless compositions render, hostile ones are stopped.
    assert.ok(outcomes.rendered > 0 && outcomes.stopped > 0, JSON.stringify(outcomes));
    assertHostUsable();
  });
});
