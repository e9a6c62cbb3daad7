// Shared (CLI) messages say what to do in VS Code terms inside VS Code.
import assert from "node:assert/strict";
import { it } from "node:test";
import { inVsCodeTerms } from "../../src/extension/shell/settings/vscode-wording";
import { lastUnsentMessage } from "../../src/extension/chats/retry-target";
import type { TranscriptEntry } from "../../src/webview/protocol/messages";

it("the default model's fetch failure points to Select Model…, not --model", () => {
  const cli = "Could not fetch the default model X.gguf:\n  - PyPI wheel: offline\nPut the file at /s/X.gguf yourself (sha256 abc), or pass --model PATH.";
  const out = inVsCodeTerms(cli);
  assert.doesNotMatch(out, /--model/);
  assert.match(out, /Put the file at \/s\/X\.gguf yourself \(sha256 abc\), or choose another model: Select Model… \(a file on disk\) or Download Model…\.$/);
});

it("a setting named with its CLI flag keeps the setting only", () => {
  assert.equal(
    inVsCodeTerms("The remote backend needs the server's URL (statefulChat.server.url, --server URL)."),
    "The remote backend needs the server's URL (setting statefulChat.server.url).",
  );
  assert.equal(inVsCodeTerms("Model file not found: /a/b.gguf"), "Model file not found: /a/b.gguf", "other messages unchanged");
});

const entry = (role: TranscriptEntry["role"], text: string, status: TranscriptEntry["status"]): TranscriptEntry => ({ id: `${role}-${text}`, role, text, status });

it("Retry after a failed load sends the message the model never read", () => {
  assert.deepEqual(lastUnsentMessage([entry("user", "a", "not-sent")]), { id: "user-a", text: "a" });
  assert.deepEqual(lastUnsentMessage([entry("user", "a", "not-sent"), entry("notice", "n", "complete")]), { id: "user-a", text: "a" });
  assert.equal(lastUnsentMessage([entry("user", "a", "complete")]), undefined, "it was sent");
  assert.equal(lastUnsentMessage([entry("user", "a", "not-sent"), entry("assistant", "b", "complete")]), undefined, "something came after it");
  assert.equal(lastUnsentMessage([]), undefined);
});
