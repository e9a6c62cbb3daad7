// Reads the metadata at the start of a GGUF file without loading the file: strings, numbers and
// booleans by key; arrays (the vocabulary, merges, scores) skipped and only counted. Used to check
// a downloaded model, to tell a GGUF from the other blobs in a model store, and to list a model
// with its real context size and chat template (readGgufSummary).
//
// Format (GGUF v2/v3, little-endian): "GGUF", u32 version, u64 tensor count, u64 key/value
// count, then key/value pairs: u64-length string key, u32 value type, value. A string is a u64
// length and its bytes; an array is a u32 item type, a u64 item count and the items.
//
// In real files `tokenizer.ggml.tokens` and `tokenizer.ggml.merges` (arrays of 50k–250k strings,
// several MB) come before `tokenizer.chat_template`, so a file is read through a sliding window:
// string arrays are stepped through item by item, fixed-size arrays are skipped without reading,
// and at most `maxBytes` of the file are read (64 MB unless told).

import { open } from "node:fs/promises";

/** GGUF value types. */
export const GGUF_TYPE = {
  UINT8: 0, INT8: 1, UINT16: 2, INT16: 3, UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7,
  STRING: 8, ARRAY: 9, UINT64: 10, INT64: 11, FLOAT64: 12,
} as const;

const FIXED_SIZE: Readonly<Record<number, number>> = { 0: 1, 1: 1, 7: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 10: 8, 11: 8, 12: 8 };
const MAX_COUNT = 1e7; // key/value pairs or tensors beyond this mean a corrupt header
const WINDOW = 1024 * 1024;
const DEFAULT_GGUF_MAX_BYTES = 64 * 1024 * 1024;

/** An array value: its item type and length (the items are not kept). */
interface GgufArrayInfo {
  readonly arrayOf: number;
  readonly length: number;
}

/** 64-bit integers are numbers when they are safe integers, bigints otherwise. */
export type GgufValue = string | number | bigint | boolean | GgufArrayInfo;

export interface GgufMetadata {
  readonly version: number;
  readonly tensorCount: number;
  /** Every key/value pair in file order (arrays as GgufArrayInfo). */
  readonly metadata: ReadonlyMap<string, GgufValue>;
  /** Offset of the first byte after the key/value pairs (where the tensor infos begin). */
  readonly metadataEnd: number;
}

export interface GgufSummary {
  readonly architecture?: string;
  readonly name?: string;
  /** `<architecture>.context_length`: the context the model was trained for. */
  readonly contextLength?: number;
  /** `tokenizer.chat_template` (the default Jinja template). */
  readonly chatTemplate?: string;
  /** `tokenizer.chat_template.<name>` (e.g. `tool_use`, `rag`), when the file has named templates. */
  readonly namedChatTemplates?: Readonly<Record<string, string>>;
  /** `general.file_type` (llama_ftype; ggufFileTypeName gives its label, e.g. 15 → "Q4_K_M"). */
  readonly fileType?: number;
}

export class GgufHeaderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GgufHeaderError";
  }
}

/** The bytes the parser has: `data` holds the file's bytes from offset `start`. */
interface Window {
  data: Uint8Array;
  view: DataView;
  start: number;
}

/** What the parser has found so far (kept when a buffer ends inside the metadata). */
interface Found {
  version: number;
  tensorCount: number;
  readonly metadata: Map<string, GgufValue>;
}

const found = (): Found => ({ version: 0, tensorCount: 0, metadata: new Map() });

/** What the parser asks its driver for: `bytes` bytes of the file from offset `at`. */
interface Pull {
  readonly at: number;
  readonly bytes: number;
}

const decoder = new TextDecoder();
const int64 = (value: bigint): number | bigint => (value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value);

/**
 * The metadata parser, driven by its caller: it yields a Pull whenever the window lacks the bytes
 * it needs next, and the caller slides the window (or gives up) before resuming it.
 */
function* parse(win: Window, found: Found): Generator<Pull, GgufMetadata, void> {
  let pos = 0;
  function* more(n: number): Generator<Pull, void, void> {
    while (pos < win.start || pos + n > win.start + win.data.length) yield { at: pos, bytes: n };
  }
  const has = (n: number) => pos >= win.start && pos + n <= win.start + win.data.length;
  const u32 = () => ((pos += 4), win.view.getUint32(pos - 4 - win.start, true));
  const u64 = () => ((pos += 8), win.view.getBigUint64(pos - 8 - win.start, true));
  /** A u64 length or count (two u32 reads: this runs once per vocabulary string). */
  const length = (what: string): number => {
    const o = pos - win.start;
    pos += 8;
    const high = win.view.getUint32(o + 4, true);
    if (high > 0x1fffff) throw new GgufHeaderError(`implausible ${what} length at byte ${pos - 8}`);
    return high * 0x100000000 + win.view.getUint32(o, true);
  };

  if (!has(24)) yield* more(24);
  if (decoder.decode(win.data.subarray(pos - win.start, pos - win.start + 4)) !== "GGUF") throw new GgufHeaderError("not a GGUF file (no GGUF magic)");
  pos += 4;
  const version = (found.version = u32());
  if (version < 2 || version > 3) throw new GgufHeaderError(`GGUF version ${version} is not supported`);
  const tensorCount = u64();
  const count = u64();
  if (tensorCount > BigInt(MAX_COUNT) || count > BigInt(MAX_COUNT)) throw new GgufHeaderError(`implausible GGUF header (${tensorCount} tensors, ${count} keys)`);
  found.tensorCount = Number(tensorCount);

  function* str(what: string): Generator<Pull, string, void> {
    if (!has(8)) yield* more(8);
    const n = length(what);
    if (!has(n)) yield* more(n);
    pos += n;
    return decoder.decode(win.data.subarray(pos - n - win.start, pos - win.start));
  }
  function* scalar(type: number): Generator<Pull, GgufValue, void> {
    if (type === GGUF_TYPE.STRING) return yield* str("string");
    const size = FIXED_SIZE[type];
    if (size === undefined) throw new GgufHeaderError(`unknown GGUF value type ${type} at byte ${pos - 4}`);
    if (!has(size)) yield* more(size);
    const o = pos - win.start;
    pos += size;
    switch (type) {
      case GGUF_TYPE.UINT8: return win.view.getUint8(o);
      case GGUF_TYPE.INT8: return win.view.getInt8(o);
      case GGUF_TYPE.UINT16: return win.view.getUint16(o, true);
      case GGUF_TYPE.INT16: return win.view.getInt16(o, true);
      case GGUF_TYPE.UINT32: return win.view.getUint32(o, true);
      case GGUF_TYPE.INT32: return win.view.getInt32(o, true);
      case GGUF_TYPE.FLOAT32: return win.view.getFloat32(o, true);
      case GGUF_TYPE.BOOL: return win.view.getUint8(o) !== 0;
      case GGUF_TYPE.UINT64: return int64(win.view.getBigUint64(o, true));
      case GGUF_TYPE.INT64: return int64(win.view.getBigInt64(o, true));
      default: return win.view.getFloat64(o, true);
    }
  }
  /** Steps over an array's items: fixed-size items in one jump, strings one length at a time. */
  function* skipItems(itemType: number, items: number): Generator<Pull, void, void> {
    const size = FIXED_SIZE[itemType];
    if (size !== undefined) return void (pos += items * size);
    if (itemType === GGUF_TYPE.STRING) {
      for (let i = 0; i < items; i++) {
        if (!has(8)) yield* more(8);
        const n = length("string"); // (not `pos += length()`: length() moves pos itself)
        pos += n;
      }
      return;
    }
    if (itemType !== GGUF_TYPE.ARRAY) throw new GgufHeaderError(`unknown GGUF array item type ${itemType} at byte ${pos}`);
    for (let i = 0; i < items; i++) {
      if (!has(12)) yield* more(12);
      const inner = u32();
      yield* skipItems(inner, length("array"));
    }
  }

  for (let i = 0; i < Number(count); i++) {
    const key = yield* str("key");
    if (!has(4)) yield* more(4);
    const type = u32();
    if (type === GGUF_TYPE.ARRAY) {
      if (!has(12)) yield* more(12);
      const arrayOf = u32();
      const items = length("array");
      yield* skipItems(arrayOf, items);
      found.metadata.set(key, { arrayOf, length: items });
    } else {
      found.metadata.set(key, yield* scalar(type));
    }
  }
  return { version, tensorCount: found.tensorCount, metadata: found.metadata, metadataEnd: pos };
}

const windowOf = (bytes: Uint8Array, start: number): Window => ({ data: bytes, view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), start });

/**
 * The metadata in `bytes` (the first part of a GGUF file). `complete` is false when the buffer
 * ends inside the key/value pairs; `metadata` then holds the pairs before the cut.
 */
export function ggufMetadataOf(bytes: Uint8Array): GgufMetadata & { readonly complete: boolean } {
  const so = found();
  const step = parse(windowOf(bytes, 0), so).next();
  if (step.done) return { ...step.value, complete: step.value.metadataEnd <= bytes.length };
  if (step.value.at < 24) throw new GgufHeaderError(`not a GGUF file (${bytes.length} bytes, shorter than a GGUF header)`);
  return { version: so.version, tensorCount: so.tensorCount, metadata: so.metadata, metadataEnd: step.value.at, complete: false };
}

/**
 * The string-valued keys found in `bytes` (the first part of a GGUF file), in file order,
 * stopping at the first key/value pair that runs past the end of the buffer.
 */
export function ggufStringMetadata(bytes: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of ggufMetadataOf(bytes).metadata) if (typeof value === "string") out.set(key, value);
  return out;
}

export interface ReadGgufOptions {
  /** Read at most this many bytes of the file (default 64 MB); metadata running past it is an error. */
  readonly maxBytes?: number;
}

/**
 * All metadata of a GGUF file, read through a sliding window. Throws GgufHeaderError when the file
 * is not a GGUF, when it ends inside its metadata (a truncated or partial file), or when the
 * metadata runs past `maxBytes`.
 */
export async function readGgufMetadata(path: string, options: ReadGgufOptions = {}): Promise<GgufMetadata> {
  const maxBytes = options.maxBytes ?? DEFAULT_GGUF_MAX_BYTES;
  const file = await open(path, "r");
  try {
    const size = (await file.stat()).size;
    const win = windowOf(new Uint8Array(0), 0);
    const parser = parse(win, found());
    let scratch: Buffer | undefined;
    for (let step = parser.next(); ; step = parser.next()) {
      if (step.done) {
        if (step.value.metadataEnd > size) throw new GgufHeaderError(`truncated GGUF: ${path} ends at byte ${size}, inside its metadata (which runs to byte ${step.value.metadataEnd})`);
        return step.value;
      }
      const { at, bytes } = step.value;
      if (at + bytes > size) {
        throw new GgufHeaderError(size < 24 ? `not a GGUF file (${size} bytes, shorter than a GGUF header): ${path}` : `truncated GGUF: ${path} ends at byte ${size}, inside its metadata`);
      }
      if (at + bytes > maxBytes) throw new GgufHeaderError(`the GGUF metadata of ${path} runs past the first ${Math.round(maxBytes / 1024 / 1024)} MB; not read further`);
      const want = Math.min(Math.max(WINDOW, bytes), size - at, maxBytes - at);
      // The parser re-reads everything it still needs from the new window, so one buffer serves.
      const buffer = want <= WINDOW ? (scratch ??= Buffer.alloc(WINDOW)) : Buffer.alloc(want);
      const { bytesRead: got } = await file.read(buffer, 0, want, at);
      if (got < bytes) throw new GgufHeaderError(`truncated GGUF: ${path} ends inside its metadata (short read at byte ${at})`);
      Object.assign(win, windowOf(buffer.subarray(0, got), at));
    }
  } finally {
    await file.close();
  }
}

/** The string metadata of a GGUF file, read from its first `limit` bytes (pairs past it are left out). */
export async function readGgufStringMetadata(path: string, limit = 16 * 1024 * 1024): Promise<Map<string, string>> {
  const file = await open(path, "r");
  try {
    const buffer = Buffer.alloc(limit);
    const { bytesRead } = await file.read(buffer, 0, limit, 0);
    return ggufStringMetadata(buffer.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}

/** The summary of already-read metadata (see readGgufSummary). */
export function ggufSummaryOf(metadata: ReadonlyMap<string, GgufValue>): GgufSummary {
  const string = (key: string) => (typeof metadata.get(key) === "string" ? (metadata.get(key) as string) : undefined);
  const integer = (key: string) => {
    const value = metadata.get(key);
    return typeof value === "number" && Number.isInteger(value) ? value : undefined;
  };
  const architecture = string("general.architecture");
  const named: Record<string, string> = {};
  for (const [key, value] of metadata) {
    if (key.startsWith("tokenizer.chat_template.") && typeof value === "string") named[key.slice("tokenizer.chat_template.".length)] = value;
  }
  const summary: { -readonly [K in keyof GgufSummary]: GgufSummary[K] } = {};
  if (architecture !== undefined) summary.architecture = architecture;
  const name = string("general.name");
  if (name !== undefined) summary.name = name;
  const contextLength = architecture === undefined ? undefined : integer(`${architecture}.context_length`);
  if (contextLength !== undefined) summary.contextLength = contextLength;
  const chatTemplate = string("tokenizer.chat_template");
  if (chatTemplate !== undefined) summary.chatTemplate = chatTemplate;
  if (Object.keys(named).length > 0) summary.namedChatTemplates = named;
  const fileType = integer("general.file_type");
  if (fileType !== undefined) summary.fileType = fileType;
  return summary;
}

/**
 * Architecture, name, trained context length, chat template(s) and file type of a GGUF file,
 * without loading it (see readGgufMetadata for what is read and what throws).
 */
export async function readGgufSummary(path: string, options: ReadGgufOptions = {}): Promise<GgufSummary> {
  return ggufSummaryOf((await readGgufMetadata(path, options)).metadata);
}

const FILE_TYPE_NAMES: Readonly<Record<number, string>> = {
  0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S", 12: "Q3_K_M",
  13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS",
  21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S",
  29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0", 37: "TQ2_0", 38: "MXFP4_MOE",
};

/** The llama.cpp label of a `general.file_type` value ("Q4_K_M"), or undefined when unknown. */
export function ggufFileTypeName(fileType: number | undefined): string | undefined {
  return fileType === undefined ? undefined : FILE_TYPE_NAMES[fileType];
}
