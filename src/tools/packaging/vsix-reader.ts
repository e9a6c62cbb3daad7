// Lists a VSIX (a zip) and reads the start of each entry, with yauzl: file names, sizes, the
// first bytes of every file (for binary-header.ts) and whole small files (package.json).
import yauzl from "yauzl";
import { HEADER_BYTES } from "./binary-header";

export interface VsixEntry {
  readonly name: string;
  readonly size: number;
  /** The first HEADER_BYTES bytes (fewer for a smaller file). */
  readonly head: Buffer;
  /** The whole file, for the few small ones the check parses (package.json, the manifest). */
  readonly text: string | undefined;
}

const WHOLE_FILE = /(^extension\/node_modules\/(@node-llama-cpp\/[^/]+|node-llama-cpp)\/package\.json$|^extension\/package\.json$|^extension\/out\/gpu-binaries\.json$|^extension\.vsixmanifest$)/;

export function readVsix(path: string): Promise<VsixEntry[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const entries: VsixEntry[] = [];
      zip.on("error", reject);
      zip.on("end", () => resolve(entries));
      zip.on("entry", (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith("/")) return zip.readEntry();
        const whole = WHOLE_FILE.test(entry.fileName);
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const chunks: Buffer[] = [];
          let length = 0;
          let done = false;
          const finish = (): void => {
            if (done) return;
            done = true;
            const bytes = Buffer.concat(chunks);
            entries.push({ name: entry.fileName, size: entry.uncompressedSize, head: bytes.subarray(0, HEADER_BYTES), text: whole ? bytes.toString("utf8") : undefined });
            zip.readEntry();
          };
          stream.on("data", (chunk: Buffer) => {
            chunks.push(chunk);
            length += chunk.length;
            // Only the header is needed: stop inflating the rest of a large binary.
            if (!whole && length >= HEADER_BYTES) {
              finish();
              stream.destroy();
            }
          });
          stream.on("error", (streamFailure: Error) => done || reject(streamFailure));
          stream.on("end", finish);
        });
      });
      zip.readEntry();
    });
  });
}
