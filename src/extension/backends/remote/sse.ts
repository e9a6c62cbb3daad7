// Server-sent events from a fetch body: the `data` of each event, in order. Comment lines
// (llama-server's `:` pings) and `event:`/`id:` fields are skipped; a body that ends in the
// middle of an event drops that event (a dropped stream is the caller's to notice).

export interface SseEvent {
  readonly event?: string;
  readonly data: string;
}

export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent, void, void> {
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let event: string | undefined;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let newline = buffer.search(/\r\n|\r|\n/); newline >= 0; newline = buffer.search(/\r\n|\r|\n/)) {
        if (newline === buffer.length - 1 && buffer.endsWith("\r")) break; // maybe the first half of \r\n
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (data.length > 0) yield { event, data: data.join("\n") };
          data = [];
          event = undefined;
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") data.push(value);
        else if (field === "event") event = value;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
