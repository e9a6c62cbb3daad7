// The CLI as a user runs it (built out/cli.js, real default model, JSON events).
import assert from "node:assert/strict";
import { copyFile, mkdtemp, open, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { defaultModelFile } from "../support/default-model";
import { runCli } from "../support/run-cli";
import { testThreads } from "../support/test-threads";

const LONG_CONVERSATION = [
  "Explain what a Python list comprehension is.",
  "Show an example that squares numbers.",
  "How do I filter even numbers with it?",
  "What is a generator expression?",
  "How is it different from a list?",
  "Write a function that sums squares of odd numbers.",
  "What does the yield keyword do?",
  "Explain dictionary comprehensions.",
  "Give an example that inverts a dictionary.",
  "What are set comprehensions?",
  "Summarize what we covered.",
  "Thanks!",
];

const turns = (events: Awaited<ReturnType<typeof runCli>>["events"]) => events.filter((e) => e.event === "turn");

describe("stateful-chat chat --json", () => {
  it("answers turns, prefills only new tokens, resets on /reset and reports an empty line", async () => {
    const run = await runCli(
      ["chat", "--json", "--max-tokens", "24", "--ctx", "2048", "--threads", String(testThreads())],
      ["Write a Python function that adds two numbers.", "Now make it subtract.", "", "/reset", "Write a Python function that adds two numbers."],
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.events[0].event, "ready");
    assert.equal(run.events[0].backend, "llamacpp");
    const t = turns(run.events);
    assert.equal(t.length, 3);
    for (const turn of t) {
      for (const key of ["turn", "prefilled", "cached", "position", "capacity", "ttftMs", "decodeTokensPerSec", "replyTokens", "reply"]) {
        assert.ok(key in turn, `turn event has ${key}`);
      }
      assert.ok((turn.replyTokens as number) > 0);
      assert.ok((turn.position as number) <= (turn.capacity as number));
    }
    assert.equal(t[1].cached, t[0].position, "turn 2 reuses the whole cache");
    assert.equal(t[1].prefilled, (t[1].position as number) - (t[0].position as number) - (t[1].replyTokens as number));
    const error = run.events.find((e) => e.event === "error");
    assert.equal(error?.code, "empty_message");
    assert.ok(run.events.some((e) => e.event === "reset"));
    assert.equal(t[2].cached, 0, "after /reset the state is fresh");
    assert.equal(t[2].prefilled, t[0].prefilled, "the first turn after reset prefills system prompt + message only");
    assert.equal(t[2].reply, t[0].reply, "greedy: same answer as the first time");
  });

  it("--strategy naive re-prefills the whole conversation every turn", async () => {
    const run = await runCli(["chat", "--json", "--strategy", "naive", "--max-tokens", "16"], ["Hi there", "How are you?", "Bye"]);
    const t = turns(run.events);
    assert.equal(t.length, 3);
    for (const turn of t) assert.equal(turn.cached, 0);
    assert.equal(t[2].prefilled, (t[2].position as number) - (t[2].replyTokens as number));
  });

  it("with --ctx 512 a long conversation summarizes and resets at least twice and keeps answering", async () => {
    const questions = LONG_CONVERSATION;
    const run = await runCli(["chat", "--json", "--ctx", "512", "--max-tokens", "64"], questions);
    assert.equal(run.code, 0, run.stderr);
    const overflows = run.events.filter((e) => e.event === "overflow");
    assert.ok(overflows.length >= 2, `overflow events: ${overflows.length}`);
    for (const o of overflows) {
      assert.equal(o.strategy, "summarize");
      assert.ok((o.positionAfter as number) < (o.positionBefore as number));
    }
    const t = turns(run.events);
    assert.equal(t.length, questions.length, "every message got an answer");
    for (const turn of t) {
      assert.ok((turn.position as number) <= 512);
      assert.equal(turn.capacity, 512);
    }
    assert.ok(t.filter((turn) => (turn.replyTokens as number) > 0).length >= questions.length - 1);
  });

  it("--overflow truncate drops the oldest turns instead", async () => {
    const lines = LONG_CONVERSATION;
    const run = await runCli(["chat", "--json", "--ctx", "512", "--max-tokens", "64", "--overflow", "truncate"], lines);
    const overflows = run.events.filter((e) => e.event === "overflow");
    assert.ok(overflows.length >= 1);
    assert.ok(overflows.every((o) => o.strategy === "truncate"));
    assert.equal(turns(run.events).length, lines.length);
  });
});

describe("stateful-chat bench", () => {
  it("runs the same conversation stateful and naive and reports counts per turn", async () => {
    const run = await runCli(["bench", "--turns", "3", "--max-tokens", "12", "--json"], []);
    assert.equal(run.code, 0, run.stderr);
    const bench = run.events.find((e) => e.event === "bench")!;
    const perTurn = bench.perTurn as Array<{ prefilled: [number, number] }>;
    assert.equal(perTurn.length, 3);
    assert.equal(perTurn[0].prefilled[0], perTurn[0].prefilled[1], "turn 1 is the same work either way");
    assert.ok(perTurn[2].prefilled[1] > perTurn[2].prefilled[0], "naive re-prefills what stateful reuses");
    assert.ok((bench.prefillRatio as number) > 1);
  });
});

describe("backend choice", () => {
  it("--backend coreml off macOS says why and falls back to llama.cpp visibly", async () => {
    const run = await runCli(["chat", "--json", "--backend", "coreml", "--max-tokens", "8"], ["Hi"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.events[0].event, "ready");
    assert.equal(run.events[0].backend, "llamacpp");
    assert.match(String(run.events[0].notice), /Core ML needs macOS 15/);
    assert.equal(turns(run.events).length, 1);
  });
});

describe("bad input", () => {
  it("a missing model path is a typed error and a clean exit", async () => {
    const run = await runCli(["chat", "--json", "--model", "/nonexistent/model.gguf"], ["hi"]);
    assert.equal(run.code, 1);
    assert.equal(run.events[0].event, "error");
    assert.equal(run.events[0].code, "model_not_found");
    assert.match(String(run.events[0].message), /\/nonexistent\/model\.gguf/);
  });

  it("a file that is not GGUF is a typed error", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sc-bad-"));
    const path = join(dir, "notes.gguf");
    await writeFile(path, "this is a text file, not a model\n".repeat(10));
    const run = await runCli(["chat", "--json", "--model", path], ["hi"]);
    assert.equal(run.code, 1);
    assert.equal(run.events[0].code, "model_invalid");
    assert.match(String(run.events[0].message), /GGUF/);
  });

  it("a truncated GGUF is a typed error, not a crash", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sc-bad-"));
    const path = join(dir, "truncated.gguf");
    await copyFile(defaultModelFile(), path);
    const handle = await open(path, "r+");
    await handle.truncate(40_000_000);
    await handle.close();
    const run = await runCli(["chat", "--json", "--model", path], ["hi"]);
    assert.equal(run.code, 1);
    assert.equal(run.events[0].code, "model_invalid");
    assert.match(String(run.events[0].message), /corrupted or incomplete|truncated/);
  });

  it("a message larger than the whole context is refused; the conversation goes on", async () => {
    const huge = "word ".repeat(3000);
    const run = await runCli(["chat", "--json", "--ctx", "512", "--max-tokens", "16"], ["Hello!", huge, "Are you still there?"]);
    assert.equal(run.code, 0);
    const error = run.events.find((e) => e.event === "error");
    assert.equal(error?.code, "message_too_large");
    const t = turns(run.events);
    assert.equal(t.length, 2);
    assert.equal(t[1].cached, t[0].position, "the refused message left the cache untouched");
  });

  it("bad flags are a usage error with exit code 2", async () => {
    const run = await runCli(["chat", "--strategy", "fast"], []);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--strategy must be one of stateful, naive/);
    const speculative = await runCli(["chat", "--speculative", "always"], []);
    assert.equal(speculative.code, 2);
    assert.match(speculative.stderr, /--speculative must be one of auto, off, lookup, draft/);
  });

  it("--speculative draft without a draft model is a typed error and a clean exit", async () => {
    const run = await runCli(["chat", "--json", "--speculative", "draft"], ["hi"]);
    assert.equal(run.code, 1);
    assert.equal(run.events[0].event, "error");
    assert.equal(run.events[0].code, "model_invalid");
    assert.match(String(run.events[0].message), /needs a draft model/);
  });

  it("--speculative lookup and --draft-model: the same replies as --speculative off, with drafted and accepted tokens in the turn events", async () => {
    const lines = ["Write a Python function is_even(n). Reply with code only.", "Repeat that function exactly, then add a docstring to it."];
    const common = ["chat", "--json", "--max-tokens", "40", "--ctx", "2048", "--threads", String(testThreads())];
    const off = await runCli([...common, "--speculative", "off"], lines);
    const lookup = await runCli([...common, "--speculative", "lookup"], lines);
    // The default model drafting for itself: the same vocabulary, so the check passes and it agrees with itself.
    const draft = await runCli([...common, "--speculative", "draft", "--draft-model", defaultModelFile()], lines);
    for (const run of [off, lookup, draft]) assert.equal(run.code, 0, run.stderr);
    const replies = (run: typeof off) => turns(run.events).map((t) => t.reply);
    assert.deepEqual(replies(lookup), replies(off));
    assert.deepEqual(replies(draft), replies(off));
    assert.match(String(lookup.events[0].details), /speculative \(prompt lookup\)/);
    type Spec = { drafted: number; accepted: number; steps: number; tokensPerStep: number };
    const spec = (run: typeof off) => turns(run.events).map((t) => t.speculation as Spec);
    assert.ok(spec(off).every((s) => s.drafted === 0 && s.tokensPerStep === 1), "off drafts nothing");
    assert.ok(spec(lookup).some((s) => s.accepted > 0), JSON.stringify(spec(lookup)));
    const drafted = spec(draft).reduce((n, s) => n + s.drafted, 0);
    const accepted = spec(draft).reduce((n, s) => n + s.accepted, 0);
    assert.ok(drafted > 0 && accepted / drafted > 0.9, `a model drafting for itself is accepted: ${accepted}/${drafted}`);
  });
});

describe("interactive mode", () => {
  it("streams the reply to stdout and a status line to stderr", async () => {
    const run = await runCli(["chat", "--max-tokens", "12"], ["Say hello."]);
    assert.equal(run.code, 0);
    assert.ok(run.stdout.trim().length > 0);
    assert.match(run.stderr, /\[turn 1 · \d+ new \+ 0 cached tokens · \d+\/4096/);
  });
});
