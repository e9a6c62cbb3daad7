// Server-sent events from a fetch body: the `data` of each event, in order. Comment lines
// (llama-server's `:` pings) and `event:`/`id:` fields are skipped; a body that ends in the
// middle of an event drops that event (a dropped stream is the caller's to notice).
// A line (or an event's data) longer than a bound is refused, not buffered: a server that
// sends one endless line would otherwise grow the host's memory until it dies. Each chunk is
// searched for line ends once, from where the last search stopped, so a long line costs time
// in proportion to its length, not its square.

import { ServerUnreachableError } from "../../core/errors";

export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

/** A streamed reply event is a few hundred characters; the final one with timings a few KB. */
export const DEFAULT_MAX_LINE_CHARS = 8 * 1024 * 1024;

/** The server sent a line, or an event's data, longer than the bound: a broken or hostile server. */
export class SseLineTooLongError extends ServerUnreachableError {
  constructor(readonly maxChars: number) {
    super(`The inference server sent a stream line longer than ${maxChars.toLocaleString("en-US")} characters; the stream was stopped (a broken or misconfigured server).`);
  }
}

export interface SseOptions {
  /** The longest line, and the longest data of one event, in characters. Defaults to DEFAULT_MAX_LINE_CHARS. */
  readonly maxLineChars?: number;
}

export async function* sseEvents(body: ReadableStream<Uint8Array>, options: SseOptions = {}): AsyncGenerator<SseEvent, void, void> {
  const maxChars = options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;
  const decoder = new TextDecoder();
  // Its own, not a module's: lastIndex is state, and this generator pauses at every yield.
  const lineEnd = /\r\n|\r|\n/g;
  // The unfinished line carried over from earlier chunks, as pieces (joined once, when it ends).
  let partial: string[] = [];
  let partialChars = 0;
  // The last chunk ended in "\r": a "\n" starting the next chunk belongs to that line end.
  let afterCr = false;
  let data: string[] = [];
  let dataChars = 0;
  let event: string | undefined;
  const reader = body.getReader();
  // Refused mid-stream: stop the body too, so the server's bytes stop arriving.
  const refuse = async (): Promise<SseLineTooLongError> => {
    await reader.cancel().catch(() => undefined);
    return new SseLineTooLongError(maxChars);
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const text = decoder.decode(value, { stream: true });
      if (text === "") continue; // e.g. half a multi-byte character: keep `afterCr` for the next
      let start = afterCr && text.startsWith("\n") ? 1 : 0;
      afterCr = false;
      lineEnd.lastIndex = start;
      for (let match = lineEnd.exec(text); match; match = lineEnd.exec(text)) {
        const piece = text.slice(start, match.index);
        const line = partial.length > 0 ? partial.join("") + piece : piece;
        partial = [];
        partialChars = 0;
        start = match.index + match[0].length;
        if (match[0] === "\r" && start === text.length) afterCr = true;
        if (line.length > maxChars) throw await refuse();
        if (line === "") {
          if (data.length > 0) yield { event, data: data.join("\n") };
          data = [];
          dataChars = 0;
          event = undefined;
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const fieldValue = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") {
          dataChars += fieldValue.length + 1;
          if (dataChars > maxChars) throw await refuse();
          data.push(fieldValue);
        } else if (field === "event") event = fieldValue;
      }
      if (start < text.length) {
        partial.push(text.slice(start));
        partialChars += text.length - start;
        if (partialChars > maxChars) throw await refuse();
      }
    }
  } finally {
    reader.releaseLock();
  }
}
