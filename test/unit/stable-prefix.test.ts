// Stable prefix first (issue 36) on small requests: the known blocks leave the system message
// byte for byte and nothing else moves; a request without a marker, or with the setting off,
// renders exactly as before; a layout is its own layout again (idempotent); and the guard on
// every template of the any-template suite (test/support/fixture-templates.ts) plus templates
// that refuse, drop or lose a second system message: each rendering keeps every byte of the
// blocks, or is VS Code's order with the reason said.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { ChatTemplate } from "../../src/extension/core/chat-template";
import { renderRequest, type RequestTemplate } from "../../src/extension/core/request-pool/request-messages";
import { type RequestMessage } from "../../src/extension/core/request-pool/request-shape";
import { findVolatileBlocks, stablePrefixLayouts, VOLATILE_BLOCKS } from "../../src/extension/core/request-pool/stable-prefix";
import { TemplateStoppedError } from "../../src/extension/core/errors";
import { DEFAULT_SANDBOX_LIMITS } from "../../src/extension/core/template-sandbox/sandbox-limits";
import { TemplateSandbox } from "../../src/extension/core/template-sandbox/template-sandbox";
import { ByteTokenizer } from "../support/fake-engine";
import { templateWorkerFromSource } from "../support/template-worker-build";
import { CHATML, FIXTURE_TEMPLATES } from "../support/fixture-templates";

const STABLE = "You are an agent.\n<instructions>\nUse the tools.\n</instructions>\n<memoryInstructions>\nKeep notes.\n</memoryInstructions>";
const SKILLS = "<instructions>\n<skills>\n<skill>\n<name>setup</name>\n</skill>\n</skills>\n<agents>\n<agent>Explore</agent>\n</agents>\n\n\n</instructions>";
const variables = (session: string) =>
  "The following template variables are available for this session:\n" +
  `- VSCODE_TARGET_SESSION_LOG: /logs/${session}\n` +
  "When a skill or instruction references {{VSCODE_VARIABLE_NAME}}, substitute the corresponding value above.";
/** As Copilot Chat 0.67 joins them: the skills block after a blank line, the variables after a newline. */
const systemOf = (session: string, skills: boolean) => `${STABLE}\n${skills ? `\n${SKILLS}\n` : ""}${variables(session)}`;
const request = (session: string, skills = false): RequestMessage[] => [
  { role: "system", content: systemOf(session, skills) },
  { role: "user", content: "<environment_info>Linux</environment_info>" },
  { role: "user", content: "<userRequest>List the files.</userRequest>" },
];
const tokenizer = new ByteTokenizer();
const on = (source: string, onFallback?: (why: string) => void): RequestTemplate => ({ chat: new ChatTemplate(source), stablePrefixFirst: true, onFallback });
const render = (template: RequestTemplate | ChatTemplate, messages: readonly RequestMessage[]) => renderRequest(template, tokenizer, messages);

describe("stable prefix first: the move", () => {
  it("both blocks: out of the system message, byte for byte, in their order, into a system turn of their own", () => {
    const layouts = stablePrefixLayouts(request("a", true))!;
    assert.deepEqual(
      layouts.blocks.map((b) => b.name),
      ["skills-agents", "template-variables"],
    );
    assert.equal(layouts.moved, `${SKILLS}\n${variables("a")}`);
    assert.equal(layouts.stableSystem, STABLE);
    // After the workspace's context message, before the request: the environment stays in what conversations share.
    assert.deepEqual(layouts.systemTurn, [
      { role: "system", content: STABLE },
      request("a")[1],
      { role: "system", content: `${SKILLS}\n${variables("a")}` },
      request("a")[2],
    ]);
    assert.deepEqual(layouts.userMessage, [
      { role: "system", content: STABLE },
      request("a")[1],
      { role: "user", content: `${SKILLS}\n${variables("a")}\n\n<userRequest>List the files.</userRequest>` },
    ]);
    const rendered = render(on(CHATML), request("a", true));
    assert.equal(rendered.layout, "system-turn");
    assert.deepEqual(rendered.moved, ["skills-agents", "template-variables"]);
    assert.equal(rendered.text, render(new ChatTemplate(CHATML), layouts.systemTurn).text);
  });

  it("one block: only the template variables (a first request, skills not loaded yet)", () => {
    const layouts = stablePrefixLayouts(request("a"))!;
    assert.deepEqual(
      layouts.blocks.map((b) => b.name),
      ["template-variables"],
    );
    assert.equal(layouts.moved, variables("a"));
    assert.equal(layouts.stableSystem, STABLE);
  });

  it("neither: no marker, or a block cut short, renders exactly as today", () => {
    const plain: RequestMessage[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ];
    assert.equal(stablePrefixLayouts(plain), undefined);
    const today = render(new ChatTemplate(CHATML), plain);
    assert.deepEqual(render(on(CHATML), plain), { ...today, layout: "as-sent", moved: [] });
    const cut: RequestMessage[] = [{ role: "system", content: `${STABLE}\n${variables("a").slice(0, -20)}` }, plain[1]!];
    assert.deepEqual(findVolatileBlocks(cut[0]!.content), [], "a start marker without its end moves nothing");
    assert.equal(render(on(CHATML), cut).text, render(new ChatTemplate(CHATML), cut).text);
    const inUser: RequestMessage[] = [plain[0]!, { role: "user", content: variables("a") }];
    assert.equal(render(on(CHATML), inUser).layout, "as-sent", "only the leading system message is searched");
  });

  it("two new conversations share everything up to their session's own value; without the move only the stable head", () => {
    const a = render(on(CHATML), request("first")).text;
    const b = render(on(CHATML), request("second")).text;
    const shared = (x: string, y: string) => {
      let i = 0;
      while (x[i] === y[i]) i++;
      return i;
    };
    assert.equal(
      a.slice(0, shared(a, b)),
      `<|im_start|>system\n${STABLE}<|im_end|>\n<|im_start|>user\n<environment_info>Linux</environment_info><|im_end|>\n<|im_start|>system\n${variables("")}`.slice(0, shared(a, b)),
    );
    assert.ok(shared(a, b) > a.indexOf("/logs/"));
    const before = shared(render(new ChatTemplate(CHATML), request("first")).text, render(new ChatTemplate(CHATML), request("second")).text);
    assert.ok(before < shared(a, b));
  });

  it("the setting off renders VS Code's order", () => {
    const off: RequestTemplate = { chat: new ChatTemplate(CHATML), stablePrefixFirst: false };
    const rendered = render(off, request("a", true));
    assert.equal(rendered.text, render(new ChatTemplate(CHATML), request("a", true)).text);
    assert.equal(rendered.layout, "as-sent");
    assert.ok(rendered.text.indexOf(SKILLS) < rendered.text.indexOf("<environment_info>"));
  });

  it("is idempotent: a layout laid out again is the same messages, rendered the same", () => {
    for (const skills of [false, true]) {
      const layouts = stablePrefixLayouts(request("a", skills))!;
      assert.equal(stablePrefixLayouts(layouts.systemTurn), undefined);
      assert.equal(stablePrefixLayouts(layouts.userMessage!), undefined);
      const once = render(on(CHATML), request("a", skills)).text;
      assert.equal(render(on(CHATML), layouts.systemTurn).text, once);
      assert.equal(render(on(CHATML), request("a", skills)).text, once, "deterministic");
    }
  });

  it("the markers are listed once, each with a reason", () => {
    assert.deepEqual(
      VOLATILE_BLOCKS.map((b) => b.name),
      ["skills-agents", "template-variables"],
    );
    for (const block of VOLATILE_BLOCKS) assert.ok(block.start.length > 10 && block.end.length > 10 && block.why.length > 0);
  });
});

/** A system message after the first is an error (as Gemma's and some Mistral templates raise). */
const REJECTS_SECOND_SYSTEM =
  "{% for m in messages %}{% if m['role'] == 'system' and not loop.first %}{{ raise_exception('System message must be at the beginning.') }}{% endif %}" +
  "{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
/** Only the first message may be a system message; later ones are skipped silently. */
const DROPS_SECOND_SYSTEM =
  "{% for m in messages %}{% if m['role'] != 'system' or loop.first %}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}{% endif %}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
/** Keeps the first system message and the first user message only: neither placement (before the request) survives. */
const FIRST_USER_ONLY =
  "{{ '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}{% set first = namespace(m='') %}{% for m in messages %}{% if m['role'] == 'user' and first.m == '' %}{% set first.m = m['content'] %}{% endif %}{% endfor %}" +
  "{{ '<|im_start|>user\\n' + first.m + '<|im_end|>\\n' }}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

describe("stable prefix first: the guard, on every template", () => {
  const expected: Record<string, string> = {
    chatml: "system-turn",
    "thoughts-dropping": "system-turn",
    // The system text goes into the last user message, so a second system turn would come before it.
    "system-in-last-user": "user-message",
    "fixed-date-line": "system-turn",
    "qwen-tools": "system-turn",
    "rejects-second-system": "user-message",
    "drops-second-system": "user-message",
    "first-user-only": "as-sent",
  };
  const templates: Record<string, string> = { ...FIXTURE_TEMPLATES, "rejects-second-system": REJECTS_SECOND_SYSTEM, "drops-second-system": DROPS_SECOND_SYSTEM, "first-user-only": FIRST_USER_ONLY };

  for (const [name, source] of Object.entries(templates)) {
    it(`${name}: ${expected[name]}, every byte of the blocks in the rendering`, () => {
      const reasons: string[] = [];
      const rendered = render(on(source, (why) => reasons.push(why)), request("a", true));
      assert.equal(rendered.layout, expected[name]);
      assert.ok(rendered.text.includes(SKILLS) && rendered.text.includes(variables("a")), rendered.text);
      const layouts = stablePrefixLayouts(request("a", true))!;
      if (rendered.layout === "as-sent") {
        assert.equal(rendered.text, render(new ChatTemplate(source), request("a", true)).text);
        assert.equal(reasons.length, 1);
        assert.match(reasons[0]!, /rendered in VS Code's order \(skills-agents, template-variables ahead of the tools\)/);
      } else {
        assert.ok(rendered.text.includes(layouts.moved), "the blocks whole, as one text");
        assert.deepEqual(reasons, []);
        const messages = rendered.layout === "system-turn" ? layouts.systemTurn : layouts.userMessage!;
        assert.equal(rendered.text, render(new ChatTemplate(source), messages).text);
      }
    });
  }

  it("says why it fell back: a refusal by the template is named", () => {
    const reasons: string[] = [];
    const firstOnlyRejecting = "{% for m in messages %}{% if m['role'] == 'system' and not loop.first %}{{ raise_exception('no second system') }}{% endif %}{% endfor %}" + FIRST_USER_ONLY;
    const rendered = render(on(firstOnlyRejecting, (why) => reasons.push(why)), request("a"));
    assert.equal(rendered.layout, "as-sent");
    assert.match(reasons[0]!, /refuses a second system message \(.*no second system.*\) and drops or changes them at the start of the request's user message/);
  });

  it("a request with blocks but no user message keeps VS Code's order when no system turn is possible", () => {
    const reasons: string[] = [];
    const rendered = render(on(DROPS_SECOND_SYSTEM, (why) => reasons.push(why)), [{ role: "system", content: systemOf("a", false) }]);
    assert.equal(rendered.layout, "as-sent");
    assert.match(reasons[0]!, /has no user message/);
  });
});

describe("stable prefix first: a template the sandbox stops", () => {
  // Loops only in the system-turn layout (four messages): before, each layout was tried in turn,
  // each after the sandbox's whole time limit, and the request then served from another layout.
  const LOOPS_ON_FOUR = "{% if messages | length > 3 %}{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}{% endif %}" + CHATML;
  const sandbox = new TemplateSandbox({ ...DEFAULT_SANDBOX_LIMITS, timeMs: 500 }, templateWorkerFromSource());
  after(() => sandbox.dispose());

  it("fails the request at the first stop instead of trying the next layout", () => {
    const stopping: RequestTemplate = { chat: new ChatTemplate(LOOPS_ON_FOUR, { sandbox }), stablePrefixFirst: true };
    const ended = sandbox.workersEnded;
    assert.throws(() => render(stopping, request("a")), TemplateStoppedError);
    assert.equal(sandbox.workersEnded, ended + 1);
  });
});
