// Issue 40, the pure parts of the peer bench on equal terms: the editing chats are fixed by
// their seeds, every scenario but e-incremental sends both sides the same messages, the
// equal-terms check fails on a planted mismatch, greedy identity finds the first differing
// token, and the report prints both.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { parseBenchPeersArgs } from "../../src/tools/cli/bench-peers-command";
import { UsageError } from "../../src/extension/cli/chat-args";
import { EDITING_CHAT_IDS, EDITING_CHAT_TURNS, editingChat } from "../../src/tools/peer-bench/editing-chats";
import { checkEqualTerms, equalTermsFailed, equalTermsLine, greedyIdentity, identityLine, withGaps, type RunTurns } from "../../src/tools/peer-bench/equal-terms";
import { markdownReport } from "../../src/tools/peer-bench/report";
import type { PeerBenchResult, RunResult } from "../../src/tools/peer-bench/run-peer-bench";
import { runScenario, scenarioEqualTerms, SCENARIO_IDS, type ScenarioSide } from "../../src/tools/peer-bench/scenarios";
import type { TurnMeasure } from "../../src/tools/peer-bench/turn-measure";

const measure = (turn: number, over: Partial<TurnMeasure> = {}): TurnMeasure => ({
  turn, chat: 0, prefilled: 10, cached: 0, ttftMs: 100, decodeTokensPerSec: 50, replyTokens: 8, contextFill: 20, capacity: 100, ...over,
});

describe("editing chats", () => {
  it("are fixed by their seeds: the same messages on every call, 12 turns each, code inline", () => {
    for (const id of EDITING_CHAT_IDS) {
      const chat = editingChat(id);
      assert.equal(chat.length, EDITING_CHAT_TURNS);
      assert.ok(EDITING_CHAT_TURNS >= 10);
      assert.deepEqual(editingChat(id), chat, `${id} is deterministic`);
      assert.deepEqual(editingChat(id, 3), chat.slice(0, 3), `${id}: fewer turns are a prefix`);
      assert.match(chat[0], /^Here is the module I am working on:\n\n```ts\n\/\/ Small statistics helpers[\s\S]*export function summary/);
      for (const message of chat.slice(1)) assert.match(message, /```ts\n(\/\*\*.*\*\/\n)?export function \w+\(/, `${id}: each later message pastes the code it is about`);
    }
    // The shapes differ: one request per chat.
    assert.match(editingChat("edit-rewrite")[1], /JSDoc|RangeError|loop variable/);
    assert.match(editingChat("edit-rename")[1], /Rename /);
    assert.match(editingChat("edit-param")[1], /Add a parameter `\w+` \(default 1\)[\s\S]*call site/);
    assert.match(editingChat("edit-fix")[1], /has a bug: [\s\S]*explain the cause/);
    assert.equal(new Set(EDITING_CHAT_IDS.map((id) => editingChat(id)[0])).size, EDITING_CHAT_IDS.length, "each seed makes its own module");
  });

  it("apply the requested edit before the next turn (a revisited function shows it)", () => {
    const rename = editingChat("edit-rename");
    const first = /Rename `(\w+)` to `(\w+)`/.exec(rename[0])!;
    assert.ok(!rename.slice(1).some((m) => m.includes(`function ${first[1]}(`)), "the old name is gone from later code");
    const fix = editingChat("edit-fix");
    assert.match(fix[8], /Is `\w+` correct now\?/, "turn 9 comes back to the first fixed function");
  });

  it("do not change by accident (a digest of every message)", () => {
    const digest = createHash("sha256").update(EDITING_CHAT_IDS.map((id) => editingChat(id).join("\u0000")).join("\u0001")).digest("hex").slice(0, 16);
    assert.equal(digest, "7c030abeff7a4714");
  });
});

describe("every scenario sends both sides the same messages", () => {
  function recording(context: ScenarioSide["context"], sent: string[]): ScenarioSide {
    return {
      context,
      countTokens: (text) => Math.ceil(text.length / 4),
      open: async (chat) => ({ send: async (text, ctx) => (sent.push(`${chat}|${ctx ?? ""}|${text}`), measure(sent.length)), dispose: async () => {} }),
    };
  }

  for (const id of SCENARIO_IDS) {
    it(`${id}: ${scenarioEqualTerms(id) === "no" ? "ours incremental, the peer whole (labelled unequal)" : "ours and the peer get identical messages"}`, async () => {
      const ours: string[] = [];
      const peer: string[] = [];
      await runScenario(id, recording("incremental", ours), { turns: 4 });
      await runScenario(id, recording("whole", peer), { turns: 4 });
      assert.equal(ours.length, 4);
      if (scenarioEqualTerms(id) === "no") assert.notDeepEqual(ours, peer);
      else assert.deepEqual(ours, peer);
    });
  }
});

const run = (label: string, turns: Array<Partial<TurnMeasure>>, repeat = 1): RunTurns => ({
  label,
  config: label,
  side: label.startsWith("ours") ? "ours" : "peer",
  repeat,
  turns: turns.map((t, i) => measure(i + 1, t)),
});

describe("equal-terms check", () => {
  const same = [{ promptTokens: 100, reply: "x" }, { promptTokens: 180, reply: "y" }, { promptTokens: 260, reply: "z" }];

  it("says yes when every run was sent the same prompt token count per turn", () => {
    const check = checkEqualTerms([run("ours:off", same), run("ours:auto", same), run("peer:default", same)], "yes");
    assert.equal(check.equal, true);
    assert.equal(check.compared, 6);
    assert.equal(check.matched, 6);
    assert.equal(equalTermsFailed(check), false);
    assert.match(equalTermsLine(check), /^equal terms: yes \(6 of 6 turns/);
  });

  it("fails on a planted mismatch (the peer sent more tokens before any reply differed)", () => {
    const planted = same.map((t, i) => (i === 1 ? { ...t, promptTokens: 420 } : t));
    const check = checkEqualTerms([run("ours:off", same), run("peer:ngram-mod", planted)], "yes");
    assert.equal(check.equal, false);
    assert.deepEqual(check.mismatches, [{ label: "peer:ngram-mod", repeat: 1, turn: 2, tokens: 420, referenceTokens: 180 }]);
    assert.equal(equalTermsFailed(check), true);
    assert.match(equalTermsLine(check), /^equal terms: no — 1 turn\(s\).*peer:ngram-mod repeat 1, turn 2: 420 tokens against 180/);
  });

  it("counts prompts that differ after the run's own earlier reply differed, not as unequal inputs", () => {
    // The first reply is one token longer: every later prompt is one token longer too.
    const diverged = [{ promptTokens: 100, reply: "x!", replyTokens: 9 }, { promptTokens: 181, reply: "y" }, { promptTokens: 262, reply: "z" }];
    const check = checkEqualTerms([run("ours:off", same), run("peer:default", diverged)], "yes");
    assert.equal(check.equal, true);
    assert.equal(check.afterDivergence, 2);
    assert.match(equalTermsLine(check), /2 after an earlier reply differed/);
  });

  it("does not let a differing reply hide unequal inputs after it (what each turn added must still match)", () => {
    // The peer's first reply differs, and from turn 2 on it is sent the whole file again (~800 tokens) where ours sent a diff.
    const ours = [{ promptTokens: 900, replyTokens: 16, reply: "x" }, { promptTokens: 960, replyTokens: 16, reply: "y" }];
    const peer = [{ promptTokens: 900, replyTokens: 16, reply: "x!" }, { promptTokens: 1740, replyTokens: 16, reply: "y" }];
    const check = checkEqualTerms([run("ours:off", ours), run("peer:default", peer)], "yes");
    assert.equal(check.equal, false);
    assert.equal(check.mismatches[0]?.turn, 2);
    assert.equal(equalTermsFailed(check), true);
  });

  it("stops comparing d once a side made room; reports e-incremental as unequal by design without failing", () => {
    const full = [{ promptTokens: 100, reply: "x" }, { promptTokens: 400, reply: "y", note: "summarize: 900 → 300 tokens" }];
    const other = [{ promptTokens: 100, reply: "x" }, { promptTokens: 700, reply: "y" }];
    const d = checkEqualTerms([run("ours:off", full), run("peer:default", other)], "until-full");
    assert.equal(d.equal, true);
    assert.equal(d.unchecked, 1);
    const incremental = checkEqualTerms([run("ours:off", [{ promptTokens: 100 }, { promptTokens: 150 }]), run("peer:default", [{ promptTokens: 100 }, { promptTokens: 400 }])], "no");
    assert.equal(incremental.equal, false);
    assert.equal(equalTermsFailed(incremental), false);
    assert.match(equalTermsLine(incremental), /^equal terms: no, by design/);
  });

  it("cannot say yes with nothing to compare", () => {
    const check = checkEqualTerms([run("ours:off", same)], "yes");
    assert.equal(check.equal, false);
    assert.equal(equalTermsFailed(check), false);
    assert.match(equalTermsLine(check), /nothing to compare/);
  });
});

describe("greedy identity", () => {
  it("compares each speculative run with its side's run without speculation and finds the first differing token", () => {
    const off = run("ours:off", [{ reply: "abc", replyTokenIds: [1, 2, 3] }, { reply: "def", replyTokenIds: [4, 5, 6] }]);
    const auto = run("ours:auto", [{ reply: "abc", replyTokenIds: [1, 2, 3] }, { reply: "dxf", replyTokenIds: [4, 9, 6] }]);
    const peerDefault = run("peer:default", [{ reply: "abc" }, { reply: "def" }]);
    const peerMod = run("peer:ngram-mod", [{ reply: "abd" }, { reply: "def" }]);
    const results = greedyIdentity([off, auto, peerDefault, peerMod]);
    assert.deepEqual(
      results.map((r) => [r.label, r.identical, r.turns, r.differences]),
      [
        ["ours:auto", 1, 2, [{ turn: 2, token: 1, char: 1 }]],
        ["peer:ngram-mod", 1, 2, [{ turn: 1, token: undefined, char: 2 }]],
      ],
    );
    assert.equal(identityLine(results[0]), "ours:auto repeat 1 vs ours:off (repeat 1): 1/2 replies identical; turn 2 differs at token 1 (char 1), gap not available");
  });

  it("adds the top-two gap at a run's first differing token only (later turns carry the difference), and none where the lookup fails", async () => {
    const off = run("ours:off", [{ reply: "ab", replyTokenIds: [1, 2] }, { reply: "cd", replyTokenIds: [3, 4] }]);
    const auto = run("ours:auto", [{ reply: "ax", replyTokenIds: [1, 7] }, { reply: "cx", replyTokenIds: [3, 8] }]);
    const asked: number[][] = [];
    const [result] = await withGaps(greedyIdentity([off, auto]), (_r, d) => [100, 101, ...[1, 2].slice(0, d.token)], async (tokens) => (asked.push([...tokens]), 0.012345));
    assert.deepEqual(asked, [[100, 101, 1]]);
    assert.deepEqual(result.differences.map((d) => d.gap), [0.0123, undefined]);
    assert.match(identityLine(result), /turn 1 differs at token 1 \(char 1\), top-two probability gap 0\.0123; turn 2 differs at token 1 \(char 1\), gap not available/);
    const [failed] = await withGaps(greedyIdentity([off, auto]), () => [1], () => Promise.reject(new Error("no engine")));
    assert.equal(failed.differences[0].gap, undefined);
  });

  it("pairs repeats with the baseline of the same repeat", () => {
    const results = greedyIdentity([
      run("ours:off", [{ reply: "a" }], 1),
      run("ours:lookup", [{ reply: "a" }], 1),
      run("ours:off", [{ reply: "b" }], 2),
      run("ours:lookup", [{ reply: "b" }], 2),
    ]);
    assert.deepEqual(results.map((r) => [r.repeat, r.identical, r.baseline]), [[1, 1, "ours:off (repeat 1)"], [2, 1, "ours:off (repeat 2)"]]);
  });
});

describe("report on equal terms", () => {
  it("prints the equal-terms verdict, the per-step figures with their spread and the identity count", () => {
    const turn = (rate: number, over: Partial<TurnMeasure> = {}) => [
      measure(1, { promptTokens: 50, reply: "r1" }),
      measure(2, { decodeTokensPerSec: rate, decodeMs: 700, replyTokens: 8, promptTokens: 90, reply: "r2", ...over }),
    ];
    const runs: RunResult[] = [];
    for (const repeat of [1, 2, 3]) {
      runs.push({ side: "ours", label: "ours:off", config: "ours:off", main: true, repeat, threads: 2, turns: turn(20 + repeat) });
      runs.push({ side: "ours", label: "ours:auto", config: "ours:auto", main: true, repeat, threads: 2, turns: turn(30 + repeat, { decodeMs: 400, speculation: { drafted: 6, accepted: 4, steps: 4 } }) });
      runs.push({ side: "peer", label: "peer:ngram-mod", config: "peer:ngram-mod", main: true, repeat, threads: 2, turns: turn(25 + repeat, { decodeMs: 500, speculation: { drafted: 5, accepted: 3, steps: 5 } }) });
    }
    const result = {
      date: "2026-12-05T00:00:00Z",
      machine: { cores: 2, cpuModel: "cpu", memoryGiB: 24, platform: "linux-x64", node: "v20" },
      model: "m.gguf",
      builds: { ours: "ours", peer: "peer" },
      settings: { turns: 2, maxTokens: 64, editTurns: 12, editMaxTokens: 192, contextSize: 8192, editContextSize: 16384, longContextSize: 1024, repeats: 3, specConfigs: ["ours:off", "ours:auto", "peer:ngram-mod"], peerDraftMax: 8, sampling: "greedy" },
      sweep: [],
      best: { ours: 2, peer: 2 },
      idleCpuPercent: { ours: 0, peer: 0 },
      scenarios: [{ id: "edit-fix", contextSize: 16384, turns: 2, maxTokens: 192, runs, equalTerms: checkEqualTerms(runs, "yes"), identity: greedyIdentity(runs) }],
    } as unknown as PeerBenchResult;
    const md = markdownReport(result, "bench", "");
    assert.match(md, /\*\*Scenario edit-fix: editing chat: fix a bug and explain/);
    assert.match(md, /equal terms: yes \(16 of 16 turns/);
    // ours:auto: decode median (min–max) over three repeats, 2 tokens per step, 1 accepted per step, 400 ms over the 3 steps after
    // the first token = 133.33 ms, 1.33× off's 100 ms per token (700 ms over 7 tokens).
    assert.match(md, /\| ours:auto \| 32 \(31–33\) \| [^|]+\| [^|]+\| 0\.67 \| 2\.00 \| 1\.00 \| 133\.33 \| 1\.33 \|/);
    assert.match(md, /\| peer:ngram-mod \| 27 \(26–28\) \| [^|]+\| [^|]+\| 0\.60 \| 1\.60 \| 0\.60 \| 125\.00 \| – \|/);
    assert.match(md, /Greedy identity .*: 6\/6 replies identical, 0 differing\./);
  });
});

describe("bench --peers: choosing scenarios", () => {
  it("runs one scenario alone, all of them, or a list; refuses unknown names", () => {
    assert.deepEqual(parseBenchPeersArgs(["--peers", "--scenario", "edit-fix"], 2).scenarios, ["edit-fix"]);
    assert.deepEqual(parseBenchPeersArgs(["--peers", "--scenario", "e-incremental"], 2).scenarios, ["e-incremental"]);
    assert.deepEqual(parseBenchPeersArgs(["--peers", "--scenarios", "all"], 2).scenarios, [...SCENARIO_IDS]);
    assert.deepEqual(parseBenchPeersArgs(["--peers", "--scenarios", "a,edit-rename"], 2).scenarios, ["a", "edit-rename"]);
    assert.equal(parseBenchPeersArgs(["--peers", "--peer-binary", "/x/llama-server"], 2).peerBinary, "/x/llama-server");
    assert.throws(() => parseBenchPeersArgs(["--scenario", "edit-everything"], 2), UsageError);
    assert.throws(() => parseBenchPeersArgs(["--scenario", "a", "--scenarios", "b"], 2), UsageError);
  });
});
