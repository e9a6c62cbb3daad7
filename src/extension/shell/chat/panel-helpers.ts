// A chat panel's small pure helpers (no `vscode`: unit-tested): the message to send again on
// Retry and the transcript notice after an engine crash; the log preview.

import type { StatefulChatError } from "../../core/errors";
import { ModelFetchCancelledError } from "../../models/default-model";
import type { TranscriptEntry } from "../../../webview/protocol/messages";

/** The last user message, when the reply to it failed (Retry sends it again). */
export function lastFailedMessage(entries: readonly TranscriptEntry[]): string | undefined {
  let last = entries.length - 1;
  while (last >= 0 && entries[last].role !== "user") last--;
  if (last < 0) return undefined;
  const reply = entries.slice(last + 1).find((e) => e.role === "assistant");
  return reply?.status === "error" ? entries[last].text : undefined;
}

/** A notice under the cut-off reply: the error code and what happens next, kept in the transcript. */
export function crashNotice(error: StatefulChatError): string | undefined {
  return error.code === "engine_crashed" || error.code === "server_unreachable" ? `${error.code}: ${error.message}` : undefined;
}

/** A bounded preview of a malformed webview message, for the log. */
export function safePreview(raw: unknown): string {
  try {
    return JSON.stringify(raw).slice(0, 200);
  } catch {
    return String(raw).slice(0, 200);
  }
}

/**
 * What a chat says when its model load was cancelled: the model line and the banner (with
 * Retry and Select Model…). A cancelled default-model fetch says it was the fetch.
 */
export function cancelledLoadNotice(error: StatefulChatError): { readonly status: string; readonly banner: string } {
  if (error instanceof ModelFetchCancelledError) {
    return { status: "Not loaded: fetching the default model was cancelled.", banner: `${error.message} Retry fetches it again; Select Model… picks another model.` };
  }
  return { status: "Not loaded: the load was cancelled.", banner: "Loading the model was cancelled. Retry loads it again; Select Model… picks another." };
}
