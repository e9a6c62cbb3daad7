// Fits one context item into its token budget. Without a focus the item keeps its first
// tokens; with one (the cursor in the active file) it keeps the lines around it, since that
// is what the user is asking about.

export interface LimitedText {
  readonly text: string;
  readonly truncated: boolean;
  /** Shown on the chip and in the prompt, e.g. "truncated" or "lines 120-180 around the cursor". */
  readonly note?: string;
}

/** Largest n in [0, max] with fits(n), given fits is monotone (true then false). */
function largest(max: number, fits: (n: number) => boolean): number {
  let low = 0;
  let high = max;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}

export function limitToTokens(text: string, maxTokens: number, count: (t: string) => number, focusLine?: number): LimitedText {
  if (count(text) <= maxTokens) return { text, truncated: false };
  if (focusLine !== undefined) {
    const lines = text.split("\n");
    const focus = Math.min(Math.max(0, focusLine), lines.length - 1);
    const window = (radius: number) => lines.slice(Math.max(0, focus - radius), focus + radius + 1).join("\n");
    const radius = largest(lines.length, (r) => count(window(r)) <= maxTokens);
    const first = Math.max(0, focus - radius);
    const last = Math.min(lines.length - 1, focus + radius);
    if (count(window(radius)) <= maxTokens) {
      return { text: window(radius), truncated: true, note: `lines ${first + 1}-${last + 1} around the cursor` };
    }
  }
  const kept = largest(text.length, (n) => count(text.slice(0, n)) <= maxTokens);
  return { text: text.slice(0, kept), truncated: true, note: "truncated" };
}
