// A reply's token ids to text and tool calls. Decoding to text first and finding markers in
// it would let a quoted `<tool_call>` (ordinary tokens) pass for a call, so the marker is
// recognised here by its token id, before the text is joined (tool-call-markers.ts).
//
// Every backend hands the ids the model sampled: llama.cpp and Core ML directly, the engine
// process over IPC, and the remote backend from the server's own ids (llama-server's, vLLM's
// `token_ids`, SGLang's `output_ids`); where llama-server skips a token that splits a UTF-8
// character, the ids it rebuilds come from encoding text without specials, so a rebuilt piece
// is never a marker token: a call is at worst shown as text, never made from text.

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
