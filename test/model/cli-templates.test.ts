// The failure a new user hit with a thoughts-dropping chat template ("The chat template
// re-renders earlier turns differently … Reset the conversation or pick another model")
// no longer happens through the CLI: every turn answers, `rewound` says what was taken back.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fixtureModel } from "../support/fixture-models";
import { runCli } from "../support/run-cli";

const MESSAGES = ["Write a Python function that adds two numbers.", "Now make it subtract.", "And multiply?"];

describe("stateful-chat chat --json with a thoughts-dropping template", () => {
  for (const history of ["template", "asGenerated"] as const) {
    it(`--history ${history}: every turn answers, no error`, async () => {
      const run = await runCli(
        ["chat", "--json", "--model", fixtureModel("thoughts-dropping"), "--history", history, "--max-tokens", "24", "--ctx", "2048", "--threads", "1"],
        MESSAGES,
      );
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(run.events.filter((e) => e.event === "error"), []);
      const turns = run.events.filter((e) => e.event === "turn");
      assert.equal(turns.length, MESSAGES.length);
      for (const turn of turns) {
        assert.equal(typeof turn.rewound, "number");
        assert.ok((turn.replyTokens as number) > 0);
      }
      if (history === "asGenerated") assert.ok(turns.every((t) => t.rewound === 0));
      else assert.ok(turns.slice(1).every((t) => (t.rewound as number) > 0), JSON.stringify(turns.map((t) => t.rewound)));
    });
  }

  it("rejects an unknown --history value with a usage error", async () => {
    const run = await runCli(["chat", "--json", "--history", "sometimes"], []);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr + run.stdout, /--history must be one of template, asGenerated/);
  });
});
