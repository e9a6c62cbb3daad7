// Maps core errors to what the panel offers the user: banner actions, and whether the
// message never reached the model. Every error that may pass on a second try (a load, a
// server, a crash, a key set anew) offers Retry: it sends the message again (chat-panel.ts).

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
    case "backend_unavailable":
      return [
        { label: "Select Model…", command: "statefulChat.selectModel" },
        { label: "Download Model…", command: "statefulChat.downloadModel" },
      ];
    case "model_load_failed":
      // A fetch that failed on the network, a load that ran out of memory: may pass next time.
      return [
        { label: "Retry", command: "statefulChat.retry" },
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
      // A 401/403: after a new key (or a fixed setting) the same message goes again.
      return [
        { label: "Set Server API Key…", command: "statefulChat.setServerApiKey" },
        { label: "Retry", command: "statefulChat.retry" },
        { label: "Settings", command: "statefulChat.openSettings" },
      ];
    case "device_memory_exceeded":
      // Another chat closed, or a smaller context set: there may be room now.
      return [
        { label: "Retry", command: "statefulChat.retry" },
        { label: "Settings", command: "statefulChat.openSettings" },
      ];
    case "engine_failed":
      // An engine error of no known kind: the conversation is intact; trying again is cheap.
      return [{ label: "Retry", command: "statefulChat.retry" }];
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

