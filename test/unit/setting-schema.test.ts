// Settings are checked against their schema in package.json: out of range → clamped, wrong
// type or not a choice → the default, each correction reported naming the setting; valid
// values and unset settings pass without a word.

import assert from "node:assert/strict";
import { it } from "node:test";
import { checkedChoice, checkedNumber, describeProblem, settingDefault, type SettingProblem } from "../../src/extension/shell/settings/setting-schema";

it("clamps numbers to the schema's range and rounds integers, reporting each", () => {
  const problems: SettingProblem[] = [];
  assert.equal(checkedNumber("temperature", -0.5, problems), 0);
  assert.equal(checkedNumber("temperature", 7, problems), 2);
  assert.equal(checkedNumber("reply.maxTokens", 12.7, problems), 13);
  assert.equal(checkedNumber("contextSize", 100, problems), 256);
  assert.equal(checkedNumber("chatProvider.sessions", 99, problems), 16);
  assert.deepEqual(problems.map((p) => p.setting), [
    "statefulChat.temperature",
    "statefulChat.temperature",
    "statefulChat.reply.maxTokens",
    "statefulChat.contextSize",
    "statefulChat.chatProvider.sessions",
  ]);
  assert.equal(describeProblem(problems[0]!), "statefulChat.temperature -0.5 is outside 0–2; using 0.");
});

it("uses the default for a value of the wrong type or not among the choices", () => {
  const problems: SettingProblem[] = [];
  assert.equal(checkedNumber("temperature", "0.7", problems), settingDefault("temperature"));
  assert.equal(checkedNumber("advanced.threads", Number.NaN, problems), 0);
  assert.equal(checkedChoice("backend", "gpu", problems), "auto");
  assert.equal(checkedChoice("speculative", "lookup", problems, (v) => v !== "lookup"), "auto", "the code's own list is checked too");
  assert.equal(problems.length, 4);
  assert.match(describeProblem(problems[2]!), /^statefulChat\.backend "gpu" is not one of auto, coreml, llamacpp, remote; using "auto"\.$/);
});

it("valid and unset values pass silently", () => {
  const problems: SettingProblem[] = [];
  assert.equal(checkedNumber("temperature", 0.7, problems), 0.7);
  assert.equal(checkedNumber("reply.maxTokens", undefined, problems), 512);
  assert.equal(checkedChoice("overflowStrategy", "truncate", problems), "truncate");
  assert.equal(checkedChoice("advanced.historyRendering", undefined, problems), "template");
  assert.deepEqual(problems, []);
});

it("refuses to check a setting package.json does not declare", () => {
  assert.throws(() => checkedNumber("noSuchSetting", 1, []), /no setting statefulChat\.noSuchSetting/);
});
