// Cheap checks before handing a file to llama.cpp, so that a wrong or damaged file is a
// clear typed error instead of a native failure deep inside the loader.

import { open, stat } from "node:fs/promises";
import { ModelInvalidError, ModelNotFoundError } from "../../core/errors";

const GGUF_MAGIC = "GGUF";

export async function assertLooksLikeGguf(modelPath: string): Promise<void> {
  let size: number;
  try {
    const info = await stat(modelPath);
    if (!info.isFile()) throw new ModelInvalidError(modelPath, "not a file");
    size = info.size;
  } catch (error) {
    if (error instanceof ModelInvalidError) throw error;
    throw new ModelNotFoundError(modelPath);
  }
  if (size < 32) throw new ModelInvalidError(modelPath, `only ${size} bytes`);
  const handle = await open(modelPath, "r");
  try {
    const header = Buffer.alloc(4);
    await handle.read(header, 0, 4, 0);
    if (header.toString("latin1") !== GGUF_MAGIC) {
      throw new ModelInvalidError(modelPath, "no GGUF header; expected a .gguf model file");
    }
  } finally {
    await handle.close();
  }
}
