// Which chat a panel VS Code reopens after a reload continues. The webview's saved state may
// name it (`panelId`); else the editor tabs' chats are taken in the order they were open. Both
// come from outside this code (a webview's state is the webview's to write), and the id becomes
// file names: anything but a chat id is dropped here, at the boundary.

import { isChatId } from "../core/chat-id";

/** The chat id to reopen: the state's, unless bad or taken by an open chat; else the first remembered one not taken. */
export function restoredChatId(state: unknown, taken: ReadonlySet<string>, remembered: readonly unknown[]): string | undefined {
  const fromState = (state as { panelId?: unknown } | undefined)?.panelId;
  if (isChatId(fromState) && !taken.has(fromState)) return fromState;
  return remembered.find((id): id is string => isChatId(id) && !taken.has(id));
}
