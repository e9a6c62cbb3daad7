// Apply from a chat, without VS Code: the host reads the block's file from its own copy of
// the reply (reasoning left out), falls back to the file chip of the question, finds the
// clicked block by its code, skips blocks that name no file in Apply All, posts each block's
// state, and tells the context which file changed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChatApply, questionFile, type ApplyPort } from "../../src/extension/shell/apply/apply-chat";
import type { ApplyController, ApplyOutcome, ApplyRequest } from "../../src/extension/shell/apply/apply-controller";
import type { HostToWebview, TranscriptEntry } from "../../src/webview/protocol/messages";

const REPLY = [
  "<think>Maybe ```ts x.ts\nnot this\n```</think>",
  "Two files:",
  "",
  "```ts src/a.ts",
  "export const a = 1;",
  "```",
  "",
  "**src/b.ts**",
  "```ts",
  "export const b = 2;",
  "```",
  "",
  "```ts",
  "export const c = 3;",
  "```",
].join("\n");

function setup(entries: TranscriptEntry[]) {
  const requests: ApplyRequest[] = [];
  const controller = {
    async apply(request: ApplyRequest): Promise<ApplyOutcome> {
      requests.push(request);
      request.notify?.("working", "Applying…");
      const path = request.namedPath ?? request.fallbackPath;
      request.notify?.("applied", `Applied to ${path}`);
      return { status: "applied", message: `Applied to ${path}`, path };
    },
  } as unknown as ApplyController;
  const posted: HostToWebview[] = [];
  const noted: string[] = [];
  const port: ApplyPort = {
    panelId: "p1",
    transcript: () => entries,
    markers: () => undefined,
    engine: () => Promise.reject(new Error("no model in this test")),
    seen: () => undefined,
    noteApplied: (path) => noted.push(path),
    post: (message) => posted.push(message),
  };
  return { chat: new ChatApply(controller), port, requests, posted, noted };
}

const ENTRIES: TranscriptEntry[] = [
  { id: "u1", role: "user", text: "Look", status: "complete", chips: [{ label: "src/main.ts", kind: "file" }] },
  { id: "r1", role: "assistant", text: "Sure.", status: "complete" },
  { id: "u2", role: "user", text: "Change it", status: "complete" },
  { id: "r2", role: "assistant", text: REPLY, status: "complete" },
];

describe("Apply from a chat", () => {
  it("reads the named file from the host's copy of the reply and finds the block by its code", async () => {
    const { chat, port, requests, posted, noted } = setup(ENTRIES);
    await chat.handle(port, { type: "applyCode", entryId: "r2", block: 1, code: "export const b = 2;" });
    assert.equal(requests[0]!.namedPath, "src/b.ts");
    assert.equal(requests[0]!.language, "ts");
    // The webview counted differently: the code decides.
    await chat.handle(port, { type: "applyCode", entryId: "r2", block: 0, code: "export const c = 3;" });
    assert.equal(requests[1]!.namedPath, undefined);
    assert.equal(requests[1]!.fallbackPath, "src/main.ts", "the file chip of the question (an earlier message: unchanged files are not sent again)");
    assert.deepEqual(posted.filter((m) => m.type === "applyState").map((m) => m.type === "applyState" && [m.block, m.state]), [
      [1, "working"],
      [1, "applied"],
      [0, "working"],
      [0, "applied"],
    ]);
    assert.deepEqual(chat.states.get("p1:r2:0"), { state: "applied", message: "Applied to src/main.ts" });
    assert.deepEqual(noted, ["src/b.ts", "src/main.ts"]);
  });

  it("Apply All goes block by block, and a block that names no file (and no chip to fall back on) is skipped", async () => {
    const entries = ENTRIES.map((e) => (e.id === "u1" ? { ...e, chips: [] } : e));
    const { chat, port, requests, posted } = setup(entries);
    await chat.handle(port, { type: "applyAll", entryId: "r2", codes: ["export const a = 1;", "export const b = 2;", "export const c = 3;"] });
    assert.deepEqual(requests.map((r) => r.namedPath), ["src/a.ts", "src/b.ts"]);
    const last = posted.filter((m) => m.type === "applyState" && m.block === 2).at(-1);
    assert.equal(last?.type === "applyState" && last.state, "cancelled");
  });

  it("a reloaded webview (a hidden one is rebuilt when shown) is told its blocks' states again", async () => {
    const { chat, port, posted } = setup(ENTRIES);
    await chat.handle(port, { type: "applyCode", entryId: "r2", block: 1, code: "export const b = 2;" });
    posted.length = 0;
    chat.replay(port);
    assert.deepEqual(posted, [{ type: "applyState", entryId: "r2", block: 1, state: "applied", message: "Applied to src/b.ts" }]);
    chat.replay({ ...port, panelId: "other" });
    assert.equal(posted.length, 1, "only this panel's blocks");
  });

  it("a reply that is gone is an error on the block", async () => {
    const { chat, port, requests, posted } = setup(ENTRIES);
    await chat.handle(port, { type: "applyCode", entryId: "nope", block: 0, code: "x" });
    assert.equal(requests.length, 0);
    assert.equal(posted[0]?.type === "applyState" && posted[0].state, "error");
  });

  it("the question's file: the nearest earlier message with a file or diff chip", () => {
    assert.equal(questionFile(ENTRIES, "r2"), "src/main.ts");
    assert.equal(questionFile([{ id: "u", role: "user", text: "", status: "complete", chips: [{ label: "a.ts", kind: "skipped" }, { label: "b.ts", kind: "diff" }] }, { id: "r", role: "assistant", text: "", status: "complete" }], "r"), "b.ts");
    assert.equal(questionFile(ENTRIES.slice(2), "r2"), undefined);
  });
});
