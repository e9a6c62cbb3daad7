// Splits an assistant reply into its reasoning and its answer, with the current model's
// reasoning markers (the same rules as the host's core, src/extension/core/reasoning.ts).
import { DEFAULT_REASONING_MARKERS, splitReasoning, type ReasoningMarkers, type SplitReply } from "../extension/core/reasoning";

let markers: ReasoningMarkers = DEFAULT_REASONING_MARKERS;

/** The model changed: its template may name other markers. */
export function setReasoningMarkers(next: ReasoningMarkers | undefined): void {
  markers = next ?? DEFAULT_REASONING_MARKERS;
}

export function replyParts(text: string): SplitReply {
  return splitReasoning(text, markers);
}

/** Bubbles from an entry's Copy button; main.ts turns it into a copyCode message. */
export const COPY_REPLY_EVENT = "statefulchat-copy-reply";
