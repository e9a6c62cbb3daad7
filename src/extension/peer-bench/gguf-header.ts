// Reads the string metadata at the start of a GGUF file (general.architecture, general.name),
// enough to check that a downloaded bench model is what it claims before it is trusted.
// Format: "GGUF", u32 version, u64 tensor count, u64 key/value count, then key/value pairs.

import { open } from "node:fs/promises";

/** GGUF value types: 8 is a string, 9 an array; the others have these fixed sizes. */
const STRING = 8;
const ARRAY = 9;
const FIXED_SIZE: Readonly<Record<number, number>> = { 0: 1, 1: 1, 7: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 10: 8, 11: 8, 12: 8 };

export class GgufHeaderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GgufHeaderError";
  }
}

class Truncated extends Error {}

/**
 * The string-valued keys found in `bytes` (the first part of a GGUF file), in file order,
 * stopping at the first key/value pair that runs past the end of the buffer.
 */
export function ggufStringMetadata(bytes: Uint8Array): Map<string, string> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 24 || new TextDecoder().decode(bytes.subarray(0, 4)) !== "GGUF") throw new GgufHeaderError("not a GGUF file (no GGUF magic)");
  const version = view.getUint32(4, true);
  if (version < 2) throw new GgufHeaderError(`GGUF version ${version} is not supported`);
  const count = Number(view.getBigUint64(16, true));
  const out = new Map<string, string>();
  let at = 24;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new Truncated();
  };
  const u32 = () => (need(4), (at += 4), view.getUint32(at - 4, true));
  const u64 = () => (need(8), (at += 8), Number(view.getBigUint64(at - 8, true)));
  const str = () => {
    const n = u64();
    need(n);
    at += n;
    return new TextDecoder().decode(bytes.subarray(at - n, at));
  };
  const skip = (type: number): void => {
    const fixed = FIXED_SIZE[type];
    if (fixed !== undefined) return void (need(fixed), (at += fixed));
    if (type === STRING) return void str();
    if (type !== ARRAY) throw new GgufHeaderError(`unknown GGUF value type ${type}`);
    const itemType = u32() ;
    const items = u64();
    const itemSize = FIXED_SIZE[itemType];
    if (itemSize !== undefined) return void (need(items * itemSize), (at += items * itemSize));
    for (let i = 0; i < items; i++) skip(itemType);
  };
  try {
    for (let i = 0; i < count; i++) {
      const key = str();
      const type = u32() ;
      if (type === STRING) out.set(key, str());
      else skip(type);
    }
  } catch (error) {
    if (!(error instanceof Truncated)) throw error;
  }
  return out;
}

/** The string metadata of a GGUF file, read from its first `limit` bytes. */
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
