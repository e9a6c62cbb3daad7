// The peer bench cannot rot: it runs end to end for 2 turns on the real default model with
// the peer disabled (building llama-server is minutes; the full run is `npm run bench:peers`).
// No timing asserts: only that every scenario ran, answered, stayed within capacity and
// wrote its report files.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { defaultModelFile } from "../support/default-model";
import { runCli } from "../support/run-cli";

interface Turn {
  readonly chat: number;
  readonly prefilled: number;
  readonly cached: number;
  readonly contextFill: number;
  readonly capacity: number;
  readonly replyTokens: number;
  readonly failed?: boolean;
}
interface Run {
  readonly side: string;
  readonly config: string;
  readonly turns: readonly Turn[];
}

describe("stateful-chat bench --peers --no-peer", () => {
  it("runs scenarios a–e for our side, speculation off and on, and writes JSON, Markdown and SVG plots", async () => {
    const out = await mkdtemp(join(tmpdir(), "peer-bench-"));
    const run = await runCli(
      ["bench", "--peers", "--no-peer", "--model", defaultModelFile(), "--turns", "2", "--sweep-turns", "2", "--threads", "1", "--max-tokens", "12", "--ctx", "2048", "--long-ctx", "512", "--edit-turns", "2", "--edit-max-tokens", "12", "--repeats", "1", "--spec-configs", "ours:off,ours:lookup", "--out", out, "--json"],
      [],
    );
    assert.equal(run.code, 0, run.stderr);
    const event = run.events.find((e) => e.event === "bench-peers") as unknown as {
      scenarios: Array<{ id: string; contextSize: number; runs: Run[] }>;
      sweep: Array<{ side: string; threads: number }>;
      machine: { cores: number; cpuModel: string };
      builds: { ours: string };
    };
    assert.ok(event, "a bench-peers JSON event");
    assert.deepEqual(event.scenarios.map((s) => s.id), ["a", "b", "c", "d", "e"]);
    assert.deepEqual(event.sweep.map((p) => [p.side, p.threads]), [["ours", 1]]);
    assert.ok(event.machine.cores >= 1 && event.machine.cpuModel.length > 0);
    assert.match(event.builds.ours, /llama\.cpp CPU/);
    assert.match(event.builds.ours, /engine host process/, "our side runs as the product runs it");
    for (const scenario of event.scenarios) {
      assert.deepEqual(scenario.runs.map((r) => `${r.side} ${r.config}`), ["ours ours:off", "ours ours:lookup"], `scenario ${scenario.id} ran our side only, both configurations`);
      for (const { turns } of scenario.runs) checkTurns(scenario.id, turns);
    }
    function checkTurns(id: string, turns: readonly Turn[]): void {
      const scenario = { id };
      assert.equal(turns.length, 2, `scenario ${scenario.id}: 2 turns`);
      for (const turn of turns) {
        assert.ok(!turn.failed && turn.replyTokens > 0, `scenario ${scenario.id} answered`);
        assert.ok(turn.contextFill <= turn.capacity, `scenario ${scenario.id} within capacity`);
      }
      if (scenario.id === "b") {
        // Two panels: each turn is the first of its own chat.
        assert.deepEqual(turns.map((t) => t.chat), [0, 1]);
      } else if (scenario.id === "c" || scenario.id === "e") {
        // Equal terms (issue 40): the whole file is sent again every turn, so the second turn reuses the first's prompt and reply from the cache.
        assert.ok(turns[1].cached >= turns[0].prefilled, `scenario ${scenario.id}: ${turns[1].cached} cached >= ${turns[0].prefilled}`);
      } else {
        // The second turn prefills only its new tokens, far fewer than the first.
        assert.ok(turns[1].prefilled < turns[0].prefilled, `scenario ${scenario.id}: ${turns[1].prefilled} < ${turns[0].prefilled}`);
      }
    }
    const files = (await readdir(out)).sort();
    assert.ok(files.includes("peer-bench.json") && files.includes("peer-bench.md"));
    for (const id of ["a", "b", "c", "d", "e"]) {
      for (const plot of [`scenario-${id}-ttft.svg`, `scenario-${id}-prefilled.svg`]) {
        assert.ok(files.includes(plot), plot);
        assert.match(await readFile(join(out, plot), "utf8"), /^<svg [^>]*>[\s\S]*<path d="M[\d.]+,[\d.]+ L[\d.]+,[\d.]+"[\s\S]*<\/svg>\n$/);
      }
    }
    const markdown = await readFile(join(out, "peer-bench.md"), "utf8");
    assert.match(markdown, /\*\*Scenario c: editing session/);
  });
});
