// What a code block says about its applied change after Keep or Undo, as the document goes on
// changing: the editor's undo after Keep brings back the text before Apply (the block says
// "reverted", not "Kept"), a redo brings the change back (kept again). Other edits leave the
// block's word as it was. Pure: pending.ts feeds it the document's text.

import type { SettledApplyState } from "../../../webview/protocol/messages";

export interface FollowedTexts {
  /** The document's text before Apply. */
  readonly original: string;
  /** Its text right after Apply. */
  readonly applied: string;
}

/** The block's state once the document holds `text`. */
export function followDocument(current: SettledApplyState, text: string, texts: FollowedTexts): SettledApplyState {
  if (texts.original === texts.applied) return current;
  if (current === "kept" && text === texts.original) return "reverted";
  if (current !== "kept" && text === texts.applied) return "kept";
  return current;
}

/** What the block says for a state: `how` tells a button (or the undo before Keep) from the editor's undo and redo since. */
export function settledMessage(state: SettledApplyState, label: string, how: "settled" | "followed"): string {
  switch (state) {
    case "kept":
      return how === "settled" ? `Kept in ${label}.` : `Back in ${label}: the editor redid the change.`;
    case "undone":
      return `Undone: ${label} is as it was.`;
    case "reverted":
      return `Reverted in the editor after Keep: ${label} has its text from before Apply again.`;
  }
}
