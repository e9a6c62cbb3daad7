// Issue 39 item 1 through the CLI, as a user meets it: a GGUF whose chat template loops
// 2×10⁸ times. Before the template sandbox, `chat --model` died after ~10 s with V8's fatal
// "invalid size error" (exit 132) and ignored SIGTERM while rendering. Now the load refuses the
// model with its name and the reason, and a template that loops only later ends that turn with
// the same error while the chat (and its transcript) carries on.
import assert from "node:assert/strict";
import { basename } from "node:path";
import { describe, it } from "node:test";
import { fixtureModel } from "../support/fixture-models";
import { runCli } from "../support/run-cli";

describe("a model whose chat template loops", () => {
  it("is refused at load with its name and the reason, exit 1 (not a crash)", async () => {
    const model = fixtureModel("looping");
    const run = await runCli(["chat", "--json", "--model", model, "--max-tokens", "8", "--ctx", "1024", "--threads", "1"], ["Hello"]);
    assert.equal(run.code, 1, run.stderr);
    const error = run.events.find((e) => e.event === "error");
    assert.equal(error?.code, "template_not_append_only", run.stdout + run.stderr);
    assert.match(String(error?.message), /was stopped/);
    assert.match(String(error?.message), /ran past the \d+ ms/);
    assert.ok(String(error?.message).includes(basename(model).replace(/\.gguf$/, "")), String(error?.message));
    assert.equal(run.events.filter((e) => e.event === "turn").length, 0);
  });

  it("that loops only on a longer conversation: that turn is an error, the next message still answers", async () => {
    const model = fixtureModel("looping-late");
    const run = await runCli(
      ["chat", "--json", "--model", model, "--max-tokens", "8", "--ctx", "1024", "--threads", "1"],
      ["Hello", "Tell me more", "/reset", "Hello again"],
    );
    assert.equal(run.code, 0, run.stderr);
    const kinds = run.events.filter((e) => e.event === "turn" || e.event === "error").map((e) => (e.event === "error" ? `error:${String(e.code)}` : "turn"));
    assert.deepEqual(kinds, ["turn", "error:template_not_append_only", "turn"], run.stdout);
  });
});
