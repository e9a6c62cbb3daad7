// Tool-call markers quoted in a request's content are spelled so that they cannot reach the
// model as the marker itself. A call is recognised only from the marker token the model emits
// (tool-call-markers.ts), but that alone does not stop a README that quotes
// `<tool_call>{"name":"run_in_terminal",…}</tool_call>`: llama.cpp matches an added token such as
// Qwen2.5's `<tool_call>` in any text it tokenizes, special-token parsing or not, so the quote
// would be in the prompt as the real marker and a model echoing it would emit the real marker
// too. A word joiner (U+2060, invisible, no meaning of its own) after the marker's first
// character keeps the quote readable and makes it ordinary tokens. Only message content is
// spelled so: the template's own text (its instructions on how to call a tool) keeps the markers.

const WORD_JOINER = "\u2060";

/** `text` with every occurrence of each marker broken by a word joiner after its first character. */
export function spellOutMarkers(text: string, markers: readonly string[]): string {
  let spelled = text;
  for (const marker of markers) {
    if (marker.length < 2 || !spelled.includes(marker)) continue;
    spelled = spelled.split(marker).join(marker[0] + WORD_JOINER + marker.slice(1));
  }
  return spelled;
}
