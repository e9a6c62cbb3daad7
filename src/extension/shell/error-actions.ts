// Maps core errors to what the panel offers the user: banner actions, and whether the
// message never reached the model.

import type { EngineCrashedError, StatefulChatError } from "../core/errors";
import type { BannerAction } from "../../webview/protocol/messages";

const NOT_SENT_CODES = new Set([
  "empty_message",
  "message_too_large",
  "model_not_found",
  "model_invalid",
  "backend_unavailable",
  "template_not_append_only",
  "model_load_failed",
  "server_rejected",
  "tokenizer_mismatch",
]);

/** The turn failed before its message was prefilled: show it as not sent. */
export function marksMessageNotSent(error: StatefulChatError): boolean {
  return NOT_SENT_CODES.has(error.code);
}

export function bannerActionsFor(error: StatefulChatError): BannerAction[] {
  switch (error.code) {
    case "model_not_found":
    case "model_invalid":
    case "model_load_failed":
    case "backend_unavailable":
      return [
        { label: "Select Model…", command: "statefulChat.selectModel" },
        { label: "Download Model…", command: "statefulChat.downloadModel" },
      ];
    case "template_not_append_only":
      // The template cannot render this conversation at all: another model is the fix.
      return [
        { label: "Select Model…", command: "statefulChat.selectModel" },
        { label: "Reset Conversation", command: "statefulChat.resetConversation" },
      ];
    case "engine_crashed":
      // Restarting: Retry sends the message again into a fresh process. Crash loop: the
      // engine stays down until the model changes or the window reloads.
      return (error as EngineCrashedError).restarting === false
        ? [{ label: "Select Model…", command: "statefulChat.selectModel" }]
        : [{ label: "Retry", command: "statefulChat.retry" }];
    case "server_unreachable":
      // A network fault, a server restart, a server that stayed busy: the conversation is
      // intact here; Retry sends the message again (the whole ledger goes with it).
      return [{ label: "Retry", command: "statefulChat.retry" }];
    case "server_rejected":
      return [
        { label: "Set Server API Key…", command: "statefulChat.setServerApiKey" },
        { label: "Settings", command: "statefulChat.openSettings" },
      ];
    case "tokenizer_mismatch":
      return [
        { label: "Select Model…", command: "statefulChat.selectModel" },
        { label: "Settings", command: "statefulChat.openSettings" },
      ];
    case "message_too_large":
    case "capacity_exceeded":
      return [{ label: "Settings", command: "statefulChat.openSettings" }];
    default:
      return [];
  }
}

