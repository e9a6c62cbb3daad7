// Which token ids are a format's tool-call markers in one model's vocabulary. A call is a call
// only when the model emitted the marker token itself: the same characters written as ordinary
// tokens (a README quoting `<tool_call>{…}</tool_call>` and echoed by the model) are text.
//
// Fallback: a vocabulary without a single token for every marker of its format (the template
// teaches plain-text markers, e.g. the default SmolLM2 tokenizer spells `<tool_call>` in five
// ordinary tokens) leaves nothing to tell a call from a quote by. Such a model's calls are
// still recognised by their text, so tool calling keeps working for it; VS Code's tool
// confirmation is then the only guard against a quoted call. `recognition` says which applies.

import type { Tokenizer } from "../engine";
import { TOOL_CALL_MARKERS, type ToolCallFormat } from "./tool-call-formats";

export type MarkerRecognition = "tokens" | "text";

export interface ToolCallMarkers {
  readonly recognition: MarkerRecognition;
  /** Token id → the marker it is; empty when `recognition` is "text". */
  readonly byToken: ReadonlyMap<number, string>;
}

export function toolCallMarkers(tokenizer: Tokenizer, format: ToolCallFormat): ToolCallMarkers {
  const byToken = new Map<number, string>();
  for (const marker of TOOL_CALL_MARKERS[format]) {
    const id = markerToken(tokenizer, marker);
    if (id === undefined) return { recognition: "text", byToken: new Map() };
    byToken.set(id, marker);
  }
  return { recognition: "tokens", byToken };
}

/**
 * The one token the vocabulary has for `marker` (an added or control token, as Qwen2.5's
 * `<tool_call>` = 151657), else undefined. Encoded with specials, since control tokens are
 * only matched then; decoded back, so a token that merely starts the marker does not count.
 */
function markerToken(tokenizer: Tokenizer, marker: string): number | undefined {
  const ids = tokenizer.encode(marker, { specials: true });
  return ids.length === 1 && tokenizer.decode(ids) === marker ? ids[0] : undefined;
}
