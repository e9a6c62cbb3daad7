// Where a streaming markdown text can be cut so that the part before the cut never has to
// be rendered again. A cut goes after a blank line that is outside any code fence and is
// followed by a line that starts a new top-level block (not indented, so not a list item's
// continuation). Rendering the two parts separately may differ in tiny ways (e.g. a list
// split in two); the final render when the entry completes uses the whole text.

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The last safe cut position in text at or after `from` (which must itself be a cut
 * position or 0), or `from` when there is none yet.
 */
export function lastStableCut(text: string, from: number): number {
  let cut = from;
  let fence: string | undefined; // the open fence's marker, e.g. "```"
  let previousBlank = false;
  let position = from;
  while (position < text.length) {
    const newline = text.indexOf("\n", position);
    // The last line may still be growing: it decides nothing until its newline arrives.
    if (newline === -1) break;
    const line = text.slice(position, newline);
    const match = FENCE.exec(line);
    if (fence !== undefined) {
      if (match && match[1]![0] === fence[0] && match[1]!.length >= fence.length && line.trim() === match[1]) fence = undefined;
    } else if (match) {
      if (previousBlank) cut = position;
      fence = match[1];
    } else if (line.trim() !== "" && previousBlank && !/^[ \t]/.test(line)) {
      cut = position;
    }
    previousBlank = fence === undefined && line.trim() === "";
    position = newline + 1;
  }
  return cut;
}
