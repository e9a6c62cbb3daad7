// Stable prefix first (issue 36) on the Agent-mode requests VS Code 1.139.1's Copilot Chat 0.67
// sent (test/bench/results/agent-requests-qwen1.5b/), re-rendered with Qwen2.5-Coder's template
// (test/support/qwen25-template.ts; the first test shows it gives the recorded text back): the
// move on a request with neither block, one, and both; every byte kept; the setting off; the
// layout idempotent; and the rendered common prefix of the two recorded new conversations.
//
// Measured in characters: the recording keeps each token's text (enough to decode, not to
// encode), and no Qwen2 tokenizer is in the repo or its test tools, so the reordered text
// cannot be tokenized here. Characters track tokens closely on this text (the same
// instructions and tool schemas); the token figure (~15,190 of ~15,630, 97.2%) came
// from retokenizing with Qwen2's vocabulary.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChatTemplate, commonPrefixLength } from "../../src/extension/core/chat-template";
import { renderRequest, type RequestTemplate } from "../../src/extension/core/request-pool/request-messages";
import { type RequestMessage } from "../../src/extension/core/request-pool/request-shape";
import { stablePrefixLayouts } from "../../src/extension/core/request-pool/stable-prefix";
import { ByteTokenizer } from "../support/fake-engine";
import { QWEN25_TEMPLATE } from "../support/qwen25-template";
import { recordedAgentRequests, type RecoveredRequest } from "../support/recorded-agent-requests";

const recorded = recordedAgentRequests();
/** The requests by what they are: a short request without tools, a new Agent-mode conversation, its follow-up (skills loaded), and a new conversation in a second window. */
const [untitled, firstNew, followUp, secondNew] = recorded as [RecoveredRequest, RecoveredRequest, RecoveredRequest, RecoveredRequest];
const chat = new ChatTemplate(QWEN25_TEMPLATE);
const tokenizer = new ByteTokenizer();
const render = (r: RecoveredRequest, stablePrefixFirst: boolean, onFallback?: (why: string) => void) =>
  renderRequest({ chat, stablePrefixFirst, onFallback } satisfies RequestTemplate, tokenizer, r.messages, r.tools);
/** The chat session's own id in VSCODE_TARGET_SESSION_LOG's path. */
const SESSION_ID = /(?<=\/debug-logs\/)[0-9a-f-]{36}/;
const TOOLS_HEAD = "\n\n# Tools\n\n";
const toolsSection = (text: string) => text.slice(text.indexOf(TOOLS_HEAD), text.indexOf("<|im_end|>", text.indexOf(TOOLS_HEAD)));

describe("stable prefix first on the recorded Agent-mode requests", () => {
  it("the recording's messages and tools, recovered, render to the recorded text (the template is the one that rendered them)", () => {
    assert.equal(recorded.length, 4);
    for (const r of recorded) assert.equal(render(r, false).text, r.record.text, r.record.id);
  });

  it("neither block: the short request renders exactly as recorded", () => {
    const reasons: string[] = [];
    const rendered = render(untitled, true, (why) => reasons.push(why));
    assert.equal(rendered.layout, "as-sent");
    assert.equal(rendered.text, untitled.record.text);
    assert.deepEqual(reasons, []);
  });

  it("one block (a new conversation) and both (its follow-up, skills loaded): a system turn after the tools and the environment, before the request", () => {
    assert.deepEqual(render(firstNew, true).moved, ["template-variables"]);
    assert.deepEqual(render(secondNew, true).moved, ["template-variables"]);
    const both = render(followUp, true);
    assert.deepEqual(both.moved, ["skills-agents", "template-variables"]);
    for (const r of [firstNew, followUp, secondNew]) {
      const rendered = render(r, true);
      assert.equal(rendered.layout, "system-turn", r.record.id);
      const layouts = stablePrefixLayouts(r.messages)!;
      const [environment, userRequest] = [r.messages[1]!, r.messages[2]!];
      assert.deepEqual([environment.role, userRequest.role], ["user", "user"], "Copilot Chat opens with the environment, then the request");
      assert.match(environment.content, /^<environment_info>/);
      const expected = `${toolsSection(rendered.text)}<|im_end|>\n<|im_start|>user\n${environment.content}<|im_end|>\n<|im_start|>system\n${layouts.moved}<|im_end|>\n<|im_start|>user\n${userRequest.content}<|im_end|>`;
      assert.equal(rendered.text.indexOf(expected), rendered.text.indexOf(TOOLS_HEAD), "the tools, the environment, the moved blocks, the request");
    }
  });

  it("keeps every byte: the blocks as recorded, the stable system text a prefix of VS Code's, the tools and later messages unchanged and in order", () => {
    for (const r of [firstNew, followUp, secondNew]) {
      const original = r.messages[0]!.content;
      const layouts = stablePrefixLayouts(r.messages)!;
      for (const block of layouts.blocks) assert.equal(block.text, original.slice(block.from, block.to));
      assert.ok(original.startsWith(layouts.stableSystem));
      // What follows the stable text in VS Code's system message is the blocks, separated by whitespace only.
      assert.equal(original.slice(layouts.stableSystem.length).replace(/\s+/g, ""), layouts.blocks.map((b) => b.text).join("").replace(/\s+/g, ""));
      const rendered = render(r, true).text;
      assert.equal(toolsSection(rendered), toolsSection(r.record.text));
      assert.ok(rendered.startsWith(`<|im_start|>system\n${layouts.stableSystem}${TOOLS_HEAD}`));
      let at = rendered.indexOf(TOOLS_HEAD);
      for (const m of layouts.systemTurn.slice(1)) {
        const next = rendered.indexOf(`<|im_start|>${m.role}\n${m.content}<|im_end|>\n`, at);
        assert.ok(next > at, `${r.record.id}: a ${m.role} message out of order or changed`);
        at = next;
      }
      // Nothing else added or lost: the recorded text, less what left the system message, plus the new turn.
      const turn = `<|im_start|>system\n${layouts.moved}<|im_end|>\n`;
      assert.equal(rendered.length, r.record.text.length - (original.length - layouts.stableSystem.length) + turn.length);
    }
  });

  it("the setting off renders every recorded request exactly as recorded", () => {
    for (const r of recorded) {
      const rendered = render(r, false);
      assert.equal(rendered.text, r.record.text);
      assert.equal(rendered.layout, "as-sent");
    }
  });

  it("idempotent: the layout laid out again is itself", () => {
    for (const r of [firstNew, followUp, secondNew]) {
      const layouts = stablePrefixLayouts(r.messages)!;
      assert.equal(stablePrefixLayouts(layouts.systemTurn), undefined);
      const again = renderRequest({ chat, stablePrefixFirst: true }, tokenizer, layouts.systemTurn as RequestMessage[], r.tools);
      assert.equal(again.text, render(r, true).text);
    }
  });

  it("two new conversations share ≥ 97% of the shorter request (characters), against 15% in VS Code's order", () => {
    const share = (on: boolean) => {
      const a = render(firstNew, on).text;
      const b = render(secondNew, on).text;
      return { shared: commonPrefixLength(a, b), shorter: Math.min(a.length, b.length) };
    };
    const before = share(false);
    const after = share(true);
    assert.equal(before.shared, 10_465, "VS Code's order: up to the session's log folder in the system message");
    assert.ok(before.shared / before.shorter < 0.16);
    assert.ok(after.shared / after.shorter >= 0.97, `${after.shared} of ${after.shorter}`);
    // The first difference is now the session's own log folder, after all the instructions and tools.
    assert.match(render(secondNew, true).text.slice(after.shared - 200, after.shared), /VSCODE_TARGET_SESSION_LOG: [^\n]*workspaceStorage\/$/);
  });

  it("a follow-up keeps its conversation's instructions and tools: the skills block no longer lands before them", () => {
    const shared = (on: boolean) => commonPrefixLength(render(firstNew, on).text, render(followUp, on).text);
    assert.equal(shared(false), 10_174);
    const after = render(followUp, true).text;
    assert.ok(shared(true) > after.indexOf("</tools>"), "the follow-up's first difference is after the tools");
  });

  it("the stable prefix the store keeps (item 4): up to the conversation's own log folder, all a new conversation of the workspace shares", () => {
    const a = render(firstNew, true);
    const stable = a.stablePrefix!;
    const logFolderAt = a.text.indexOf("/debug-logs/", a.text.indexOf("VSCODE_TARGET_SESSION_LOG")) + "/debug-logs/".length;
    assert.ok(a.text.indexOf("The following template variables") > a.text.indexOf("</tools>"));
    assert.equal(tokenizer.decode(a.tokens.slice(0, stable)), a.text.slice(0, logFolderAt), "through the folder's path, not the session's own name");
    // A new conversation of the same workspace (its own session id): shares all of it, and parts right after.
    const sameWorkspace = { ...firstNew, messages: firstNew.messages.map((m, i) => (i === 0 ? { ...m, content: m.content.replace(SESSION_ID, "0c5e1d2a-7b3f-4e6a-9d8c-2f1a0b9e8d7c") } : m)) };
    const c = render(sameWorkspace, true);
    assert.notEqual(c.text, a.text);
    assert.equal(c.stablePrefix, stable);
    assert.equal(commonPrefixLength(a.text, c.text), logFolderAt);
    // The second window is another workspace: it shares the stored prefix up to that workspace's id (a restore cuts the entry back there).
    const b = render(secondNew, true);
    const shared = commonPrefixLength(a.text, b.text);
    assert.match(a.text.slice(shared - 200, shared), /VSCODE_TARGET_SESSION_LOG: [^\n]*workspaceStorage\/$/);
    assert.ok(logFolderAt - shared < 100, `${logFolderAt - shared} characters of the stored prefix are the workspace's`);
    // The follow-up, with the skills block, has a longer one: the skills block recurs within a window.
    assert.ok(render(followUp, true).stablePrefix! > stable);
  });
});
