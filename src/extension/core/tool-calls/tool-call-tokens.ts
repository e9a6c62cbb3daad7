// A reply's token ids to text and tool calls. Decoding to text first and finding markers in
// it would let a quoted `<tool_call>` (ordinary tokens) pass for a call, so the marker is
// recognised here by its token id, before the text is joined (tool-call-markers.ts).
//
// Every backend hands the ids the model sampled: llama.cpp and Core ML directly, the engine
// process over IPC, and the remote backend from the server's own ids (llama-server's, vLLM's
// `token_ids`, SGLang's `output_ids`); where llama-server skips a token that splits a UTF-8
// character, the ids it rebuilds come from encoding that piece of text. llama.cpp matches added
// tokens (Qwen2.5's `<tool_call>`) even without special-token parsing, so a rebuilt piece that
// spelled a whole marker would become the marker; a piece rebuilt there is the few bytes around
// one split character, so that needs a marker spelled across a split character.
//
// The prompt side is request-messages.ts's: markers quoted in content are spelled out
// (quoted-markers.ts), so a quote is ordinary tokens for the model to echo.

import type { Tokenizer } from "../engine";
import { StreamDecoder } from "../stream-decoder";
import type { ToolCallFormat } from "./tool-call-formats";
import { toolCallMarkers } from "./tool-call-markers";
import { ToolCallStream, type ReplyPart } from "./tool-call-stream";

export class ToolCallTokenStream {
  private readonly decoder: StreamDecoder;
  private readonly calls: ToolCallStream;
  private readonly markers: ReadonlyMap<number, string>;

  constructor(tokenizer: Tokenizer, format: ToolCallFormat, newId?: (index: number) => string) {
    const markers = toolCallMarkers(tokenizer, format);
    this.decoder = new StreamDecoder(tokenizer);
    this.markers = markers.byToken;
    this.calls = new ToolCallStream(format, markers.recognition, newId);
  }

  push(token: number): ReplyPart[] {
    const piece = this.decoder.push(token);
    const marker = this.markers.get(token);
    if (marker === undefined) return piece ? this.calls.push(piece) : [];
    // The decoder releases what it held back (a split character) with the marker's own text.
    const before = piece.endsWith(marker) ? piece.slice(0, piece.length - marker.length) : piece;
    return [...this.calls.push(before), ...this.calls.pushMarker(marker)];
  }

  end(): ReplyPart[] {
    return [...this.calls.push(this.decoder.flush()), ...this.calls.end()];
  }
}
