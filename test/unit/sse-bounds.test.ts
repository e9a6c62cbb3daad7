// The SSE parser under a hostile or broken server (issue 39, item 11): one endless line, or
// an event whose data never ends, is refused with a typed error once it passes the bound (and
// the body is cancelled), instead of growing the host's memory; a long line within the bound
// costs linear time, not a rescan of the whole buffer per chunk.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jsonEvents } from "../../src/extension/backends/remote/json-events";
import { ServerConnection } from "../../src/extension/backends/remote/http";
import { DEFAULT_MAX_LINE_CHARS, SseLineTooLongError, sseEvents } from "../../src/extension/backends/remote/sse";

/** A body of `count` chunks made by `chunk(i)`, that records how many were read and whether it was cancelled. */
function body(count: number, chunk: (i: number) => string): { stream: ReadableStream<Uint8Array>; pulled: () => number; cancelled: () => boolean } {
  const encoder = new TextEncoder();
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === count) return controller.close();
      controller.enqueue(encoder.encode(chunk(pulled++)));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, pulled: () => pulled, cancelled: () => cancelled };
}

async function drain(stream: ReadableStream<Uint8Array>, maxLineChars?: number): Promise<string[]> {
  const data: string[] = [];
  for await (const event of sseEvents(stream, { maxLineChars })) data.push(event.data);
  return data;
}

describe("SSE: bounded lines", () => {
  it("one line without a newline is refused once it passes the bound, the body cancelled, not read to its end", async () => {
    const endless = body(1_000, () => "x".repeat(4096));
    await assert.rejects(drain(endless.stream, 64 * 1024), (error: unknown) => {
      assert.ok(error instanceof SseLineTooLongError, String(error));
      assert.equal(error.code, "server_unreachable");
      assert.match(error.message, /longer than 65,536 characters/);
      return true;
    });
    assert.ok(endless.pulled() <= 20, `read ${endless.pulled()} chunks of 4 KB for a 64 KB bound`);
    assert.ok(endless.cancelled(), "the body was cancelled");
  });

  it("a line that ends just past the bound in one chunk is refused too; one at the bound passes", async () => {
    await assert.rejects(drain(body(1, () => `data: ${"y".repeat(100)}\n\n`).stream, 100), SseLineTooLongError);
    assert.deepEqual(await drain(body(1, () => `data: ${"y".repeat(94)}\n\n`).stream, 100), ["y".repeat(94)]);
  });

  it("an event whose data lines never end (no blank line) is refused at the bound", async () => {
    const lines = body(1_000, () => `data: ${"z".repeat(1000)}\n`);
    await assert.rejects(drain(lines.stream, 64 * 1024), SseLineTooLongError);
    assert.ok(lines.pulled() <= 70, `read ${lines.pulled()} data lines of 1 KB for a 64 KB bound`);
  });

  it("through jsonEvents the refusal stays the typed error (not 'the connection broke')", async () => {
    const connection = new ServerConnection(new URL("http://127.0.0.1:1"), undefined);
    const endless = body(DEFAULT_MAX_LINE_CHARS / 65536 + 2, () => "d".repeat(65536));
    const response = new Response(endless.stream);
    await assert.rejects(
      (async () => {
        for await (const _ of jsonEvents(response, connection, new AbortController().signal)) void _;
      })(),
      SseLineTooLongError,
    );
  });

  it("a 4 MB line in 1 KB chunks is parsed in linear time (the old rescan took ~9 s here)", async () => {
    const size = 4 * 1024 * 1024;
    const chunks = size / 1024;
    const stream = body(chunks + 1, (i) => (i === 0 ? "data: " : i === chunks ? "\n\n" : "a".repeat(1024))).stream;
    const started = performance.now();
    const [data] = await drain(stream);
    const elapsed = performance.now() - started;
    assert.equal(data?.length, size - 1024);
    assert.ok(elapsed < 2_000, `took ${Math.round(elapsed)} ms`);
  });

  it("a \\r\\n split across chunks (even with an empty chunk between) is one line end", async () => {
    const parts = ["data: a\r", "", "\n\r", "\ndata: b\n", "\n"];
    assert.deepEqual(await drain(body(parts.length, (i) => parts[i]!).stream), ["a", "b"]);
  });
});
