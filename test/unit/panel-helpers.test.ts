// Retry after a failed reply, and the engine-crash notice kept in the transcript.
import assert from "node:assert/strict";
import { it } from "node:test";
import { CancelledError, EngineCrashedError, EngineFailedError } from "../../src/extension/core/errors";
import { ModelFetchCancelledError } from "../../src/extension/models/default-model";
import { cancelledLoadNotice, crashNotice, lastFailedMessage } from "../../src/extension/shell/chat/panel-helpers";
import type { TranscriptEntry } from "../../src/webview/protocol/messages";

const entry = (role: TranscriptEntry["role"], text: string, status: TranscriptEntry["status"]): TranscriptEntry => ({ id: text, role, text, status });

it("Retry sends the last message again only when its reply failed", () => {
  const ok = [entry("user", "a", "complete"), entry("assistant", "A", "complete")];
  assert.equal(lastFailedMessage(ok), undefined);
  const failed = [...ok, entry("user", "b", "complete"), entry("assistant", "partial", "error"), entry("notice", "engine_crashed: …", "complete")];
  assert.equal(lastFailedMessage(failed), "b");
  assert.equal(lastFailedMessage([]), undefined);
  assert.equal(lastFailedMessage([entry("user", "c", "not-sent")]), undefined, "no reply to retry");
});

it("an engine crash leaves a notice with its code; other errors do not", () => {
  assert.match(crashNotice(new EngineCrashedError("The engine process stopped (killed by SIGKILL).", true)) ?? "", /^engine_crashed: .*SIGKILL/);
  assert.equal(crashNotice(new EngineFailedError("x")), undefined);
});

it("a cancelled default-model fetch says it was the fetch, and that Retry fetches it again", () => {
  const fetch = cancelledLoadNotice(new ModelFetchCancelledError("SmolLM2-135M-Instruct.Q4_1.gguf"));
  assert.match(fetch.banner, /^Fetching the default model \(SmolLM2-135M-Instruct\.Q4_1\.gguf\) was cancelled\. Retry fetches it again/);
  assert.match(fetch.status, /fetching the default model was cancelled/);
  assert.match(cancelledLoadNotice(new CancelledError()).banner, /^Loading the model was cancelled\. Retry loads it again/);
});
