// Fast apply without a model: the prompt carries the original and the change; the code is
// read out of the reply (also while it streams); a rewrite that is cut off or changes lines far
// from the change is caught; the budget says whether it fits the engine's state; a run on a
// scripted engine streams its code, uses a side session of its own and stops on cancel.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Engine, KvState, SamplingOptions } from "../../src/extension/core/engine";
import { CancelledError } from "../../src/extension/core/errors";
import { Conversation } from "../../src/extension/core/conversation";
import { checkFastApply, fastApplyBudget, fastApplyPrompt, parseFastApplyReply, regionText, spliceRegion } from "../../src/extension/core/apply/fast-apply";
import { runFastApply } from "../../src/extension/core/apply/fast-apply-run";
import { ByteTokenizer, CHATML_TEMPLATE, EOS } from "../support/fake-engine";

const ORIGINAL = Array.from({ length: 40 }, (_, i) => `export const value${i} = ${i};`).join("\n");
const CHANGE = "export const value20 = 2000;";

function fenced(code: string): string {
  return `\`\`\`ts\n${code}\n\`\`\``;
}

describe("fast apply prompt and reply", () => {
  it("the prompt holds the original and the change, fenced so that neither can close the other's block", () => {
    const prompt = fastApplyPrompt({ path: "src/a.ts", language: "ts", original: "const s = `x`;\n```", code: "const s = `y`;", lines: { first: 3, last: 4, total: 10 } });
    assert.match(prompt, /^The change to src\/a\.ts .*:\n````ts\nconst s = `y`;\n````\n/);
    assert.match(prompt, /The code of src\/a\.ts \(lines 3–4 of 10\), to copy with the change applied:\n````ts\nconst s = `x`;\n```\n````$/, "the original last: the reply copies it");
  });

  it("reads the code from a complete, a streaming and an unfenced reply", () => {
    assert.deepEqual(parseFastApplyReply("Sure:\n```ts\na\nb\n```\nDone."), { code: "a\nb", fenced: true, closed: true, settled: true });
    assert.deepEqual(parseFastApplyReply("```ts\na\n```"), { code: "a", fenced: true, closed: true }, "the closing line may still grow");
    assert.deepEqual(parseFastApplyReply("```ts\na\nb\n``"), { code: "a\nb", fenced: true, closed: false });
    assert.deepEqual(parseFastApplyReply("``"), { code: "", fenced: true, closed: false });
    assert.deepEqual(parseFastApplyReply("a\nb\n"), { code: "a\nb", fenced: false, closed: false });
    assert.deepEqual(parseFastApplyReply("````\n```\nx\n```\n````"), { code: "```\nx\n```", fenced: true, closed: true });
  });
});

describe("fast apply checks", () => {
  const check = (output: string, stopReason: "eog" | "max_tokens" = "eog", code = CHANGE) =>
    checkFastApply({ original: ORIGINAL, code, reply: parseFastApplyReply(fenced(output)), stopReason });

  it("accepts a rewrite that changes only the lines near the change", () => {
    assert.deepEqual(check(ORIGINAL.replace("value20 = 20;", "value20 = 2000;")), { ok: true });
    // The block shares lines with the original: the change stays between them.
    const code = ["export const value19 = 19;", "export const value20 = 2000;", "export const value21 = 21;"].join("\n");
    assert.deepEqual(check(ORIGINAL.replace("value20 = 20;", "value20 = 2000;"), "eog", code), { ok: true });
  });

  it("cut off: the token limit, an open code block, or a rewrite that stops before the region ends", () => {
    const full = ORIGINAL.replace("value20 = 20;", "value20 = 2000;");
    assert.equal((check(full, "max_tokens") as { problem: string }).problem, "cut-off");
    const open = checkFastApply({ original: ORIGINAL, code: CHANGE, reply: parseFastApplyReply("```ts\n" + full), stopReason: "eog" });
    assert.equal((open as { problem: string }).problem, "cut-off");
    const stopsEarly = full.split("\n").slice(0, 25).join("\n");
    const result = check(stopsEarly, "eog", ["export const value19 = 19;", CHANGE].join("\n"));
    assert.equal(result.ok, false);
    assert.equal((result as { problem: string }).problem, "cut-off");
    assert.deepEqual((result as { lines: unknown }).lines, { first: 26, last: 40 });
  });

  it("far: lines changed far from the lines the block shares with the original", () => {
    const code = ["export const value19 = 19;", "export const value20 = 2000;", "export const value21 = 21;"].join("\n");
    const far = ORIGINAL.replace("value20 = 20;", "value20 = 2000;").replace("value3 = 3;", "value3 = 333;");
    const result = check(far, "eog", code);
    assert.equal((result as { problem: string }).problem, "far");
    assert.deepEqual((result as { lines: unknown }).lines, { first: 4, last: 4 });
    assert.match((result as { message: string }).message, /changed line 4, far from the change \(lines 20–22\)/);
  });

  it("a block with no line of the original may add code, not rewrite much of the file", () => {
    const code = "export function total(): number {\n  return 0;\n}";
    assert.deepEqual(check(`${ORIGINAL}\n${code}`, "eog", code), { ok: true });
    const rewritten = ORIGINAL.split("\n").map((l, i) => (i < 20 ? l.replace("const", "let") : l)).join("\n");
    assert.equal((check(`${rewritten}\n${code}`, "eog", code) as { problem: string }).problem, "far");
  });

  it("no code at all is refused", () => {
    assert.equal((check("") as { problem: string }).problem, "empty");
  });
});

describe("fast apply budget and splicing", () => {
  it("fits when prompt and reply stay below the margin the turn keeps free", () => {
    assert.equal(fastApplyBudget({ promptTokens: 1000, regionTokens: 900, codeTokens: 50, capacity: 4096 }).fits, true);
    assert.equal(fastApplyBudget({ promptTokens: 1800, regionTokens: 1700, codeTokens: 50, capacity: 4096 }).fits, false);
    assert.equal(fastApplyBudget({ promptTokens: 1800, regionTokens: 1700, codeTokens: 50, capacity: 8192 }).fits, true);
  });

  it("splices a region's rewrite into the file, keeping its line breaks", () => {
    const text = "a\r\nb\r\nc\r\nd\r\n";
    assert.equal(regionText(text, { start: 1, end: 3 }), "b\nc");
    assert.equal(spliceRegion(text, { start: 1, end: 3 }, "B\nC\nC2"), "a\r\nB\r\nC\r\nC2\r\nd\r\n");
    assert.equal(spliceRegion("x", { start: 0, end: 1 }, "y"), "y");
  });
});

/** A model that answers every prompt with the text `reply(prompt)`, one byte per token, then EOS. */
class ScriptedEngine implements Engine {
  readonly tokenizer = new ByteTokenizer();
  readonly chatTemplate = CHATML_TEMPLATE;
  readonly info = { backend: "llamacpp" as const, modelPath: "scripted", modelName: "scripted", capacity: 8192, details: "test double" };
  states = 0;
  constructor(private readonly reply: (prompt: string) => string, readonly onStep?: () => void) {}
  async createState(): Promise<KvState> {
    this.states++;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the state's own methods below have their own `this`
    const engine = this;
    const cache: number[] = [];
    let answer: number[] | undefined;
    let at = 0;
    return {
      capacity: this.info.capacity,
      get length() {
        return cache.length;
      },
      async evaluate(tokens: readonly number[], sample?: SamplingOptions) {
        await new Promise((r) => setImmediate(r));
        cache.push(...tokens);
        if (!sample) return undefined;
        engine.onStep?.();
        if (!answer) {
          answer = engine.tokenizer.encode(engine.reply(engine.tokenizer.decode(cache)), { specials: false });
          at = 0;
        }
        return at < answer.length ? answer[at++]! : EOS;
      },
      async truncate(length: number) {
        cache.length = Math.min(length, cache.length);
      },
      async reset() {
        cache.length = 0;
      },
      async dispose() {},
    };
  }
  async dispose(): Promise<void> {}
}

describe("fast apply run", () => {
  const request = { path: "src/a.ts", language: "ts", original: ORIGINAL, code: CHANGE };
  const rewrite = ORIGINAL.replace("value20 = 20;", "value20 = 2000;");

  it("streams the code, checks it, and runs in a side session of its own", async () => {
    let prompt = "";
    // The reply is opened with the code fence: the model writes the code, then closes it.
    const engine = new ScriptedEngine((p) => {
      prompt = p;
      return `${rewrite}\n\`\`\``;
    });
    const chat = await Conversation.create(engine);
    const seen: string[] = [];
    const run = await runFastApply(engine, request, { onCode: (code) => seen.push(code) });
    assert.equal(run.parsed.code, rewrite);
    assert.deepEqual(run.check, { ok: true });
    assert.equal(run.stats.stopReason, "eog");
    assert.ok(prompt.endsWith("<|im_start|>assistant\n```ts\n"), "the reply opens inside the code block");
    assert.ok(seen.length > 10 && seen.at(-1) === rewrite, "the code streamed as it was written");
    assert.ok(seen.every((code) => !code.includes("```")), "fences never reach the proposal");
    assert.match(prompt, /You merge code changes into files/);
    assert.ok(prompt.indexOf(CHANGE) < prompt.indexOf(ORIGINAL), "the change before the original");
    assert.ok(prompt.includes(ORIGINAL) && prompt.includes(CHANGE));
    assert.equal(engine.states, 2, "its own state beside the chat's");
    assert.equal(chat.ledger.length, 0, "the chat's ledger is untouched");
    await chat.dispose();
  });

  it("stops once the code block is closed: what the model would say after it is not generated", async () => {
    let steps = 0;
    const engine = new ScriptedEngine(() => `${rewrite}\n\`\`\`\n\nThis code changes value20.` + " More talk.".repeat(50), () => steps++);
    const run = await runFastApply(engine, request);
    assert.equal(run.parsed.code, rewrite);
    assert.deepEqual(run.check, { ok: true });
    assert.equal(run.stats.stopReason, "eog");
    assert.ok(!run.reply.includes("More talk"), run.reply.slice(-80));
    assert.ok(steps < rewrite.length + 10, `${steps} steps`);
  });

  it("stops on cancel: before the reply (CancelledError) or during it (cut off)", async () => {
    const before = new AbortController();
    before.abort();
    await assert.rejects(runFastApply(new ScriptedEngine(() => rewrite), request, { signal: before.signal }), (e: unknown) => e instanceof CancelledError);
    const during = new AbortController();
    let steps = 0;
    const engine = new ScriptedEngine(() => `${rewrite}\n\`\`\``, () => {
      if (++steps === 50) during.abort();
    });
    const run = await runFastApply(engine, request, { signal: during.signal });
    assert.equal(run.stats.stopReason, "cancelled");
    assert.equal(run.check.ok, false);
    assert.ok(run.parsed.code.length < rewrite.length);
  });
});
