// Reasoning ("thinking") in replies: text between a model's reasoning markers, `<think>` …
// `</think>` by default, or markers its chat template names. The transcript keeps it; the
// answer (what Copy, Insert at Cursor and the overflow summary take) leaves it out.
// Pure, with no imports, so that the webview can use the same rules.

export interface ReasoningMarkers {
  readonly open: string;
  readonly close: string;
  /** The template's generation prompt opens the block (DeepSeek-R1 style): replies start inside it. */
  readonly openedByPrompt?: boolean;
}

export const DEFAULT_REASONING_MARKERS: ReasoningMarkers = { open: "<think>", close: "</think>" };

/** Marker pairs used by public models; a template that names both of a pair declares it. */
const KNOWN_MARKERS: readonly ReasoningMarkers[] = [
  DEFAULT_REASONING_MARKERS,
  { open: "<thinking>", close: "</thinking>" },
  { open: "[THINK]", close: "[/THINK]" },
  { open: "<|begin_of_thought|>", close: "<|end_of_thought|>" },
  { open: "<seed:think>", close: "</seed:think>" },
];

/** The reasoning markers a chat template declares (`<think>` when it names none). */
export function reasoningMarkersOf(template: string): ReasoningMarkers {
  return KNOWN_MARKERS.find((m) => template.includes(m.open) && template.includes(m.close)) ?? DEFAULT_REASONING_MARKERS;
}

export interface SplitReply {
  /** The reasoning text, without markers; undefined when the reply has none. */
  readonly thinking?: string;
  /** The reasoning block is closed (or there is none). */
  readonly thinkingDone: boolean;
  readonly answer: string;
}

/**
 * Splits a (possibly still streaming) reply. A reply that opens with the open marker is
 * thinking until the close marker; a reply with a close marker but no open one (the
 * template's generation prompt opened the block) is thinking up to it.
 */
export function splitReasoning(reply: string, markers: ReasoningMarkers = DEFAULT_REASONING_MARKERS): SplitReply {
  if (markers.openedByPrompt && !reply.trimStart().startsWith(markers.open)) {
    return splitReasoning(markers.open + reply, { open: markers.open, close: markers.close });
  }
  const lead = reply.length - reply.trimStart().length;
  if (reply.startsWith(markers.open, lead)) {
    const start = lead + markers.open.length;
    const end = reply.indexOf(markers.close, start);
    if (end < 0) return { thinking: reply.slice(start).trim(), thinkingDone: false, answer: "" };
    return { thinking: reply.slice(start, end).trim(), thinkingDone: true, answer: reply.slice(end + markers.close.length).trimStart() };
  }
  const close = reply.indexOf(markers.close);
  if (close >= 0 && !reply.slice(0, close).includes(markers.open)) {
    return { thinking: reply.slice(0, close).trim(), thinkingDone: true, answer: reply.slice(close + markers.close.length).trimStart() };
  }
  return { thinkingDone: true, answer: reply };
}

/** Whether a generation prompt (the text the template appends for the reply) leaves a reasoning block open. */
export function opensReasoning(generationPrompt: string, markers: ReasoningMarkers): boolean {
  const open = generationPrompt.lastIndexOf(markers.open);
  return open >= 0 && generationPrompt.indexOf(markers.close, open) < 0;
}

/** The reply without its reasoning. */
export function answerOf(reply: string, markers?: ReasoningMarkers): string {
  return splitReasoning(reply, markers).answer;
}

/** Counts the reply tokens spent thinking, as they stream. */
export class ThinkingCounter {
  private text = "";
  private tokens = 0;
  private done = false;

  constructor(private readonly markers: ReasoningMarkers = DEFAULT_REASONING_MARKERS) {}

  /** One generated token and the text it completed (possibly ""). */
  push(text: string): void {
    if (this.done) return;
    this.text += text;
    this.tokens++;
    // A reply that did not open a block may still close one the prompt opened: keep counting.
    if (this.text.includes(this.markers.close)) this.done = true;
  }

  /** Tokens of reasoning in the reply so far (0 when it has none). */
  get count(): number {
    return splitReasoning(this.text, this.markers).thinking === undefined ? 0 : this.tokens;
  }
}
