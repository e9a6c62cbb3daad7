// Rebuilds what the model saw from a saved transcript (no `vscode`: unit-tested).

import type { ChatMessage } from "../core/chat-template";
import type { TranscriptEntry } from "../../webview/protocol/messages";

/** The messages the model saw, rebuilt from the transcript (user turns that got a reply). */
export function conversationOf(entries: readonly TranscriptEntry[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let i = 0; i < entries.length; i++) {
    const user = entries[i];
    if (user.role !== "user" || user.status === "not-sent") continue;
    const reply = entries.slice(i + 1).find((e) => e.role !== "notice");
    if (reply?.role === "assistant" && (reply.status === "complete" || reply.status === "stopped")) {
      messages.push({ role: "user", content: user.text.trim() }, { role: "assistant", content: reply.text });
    }
  }
  return messages;
}

