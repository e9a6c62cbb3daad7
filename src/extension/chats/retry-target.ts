// What Retry sends again when no reply failed: the user's last message, when the model never
// read it (the model failed to load, or its load was cancelled) and nothing came after it.
// Pure (no `vscode`): unit-tested.

import type { TranscriptEntry } from "../../webview/protocol/messages";

export function lastUnsentMessage(entries: readonly TranscriptEntry[]): { readonly id: string; readonly text: string } | undefined {
  let last = entries.length - 1;
  // Notices (a crash note, an overflow note) may follow; a reply may not.
  while (last >= 0 && entries[last]!.role === "notice") last--;
  const entry = entries[last];
  return entry?.role === "user" && entry.status === "not-sent" ? { id: entry.id, text: entry.text } : undefined;
}
