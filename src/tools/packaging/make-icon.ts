// `node --import tsx src/tools/packaging/make-icon.ts`: writes media/icon.png, the 128×128
// Marketplace icon (a chat bubble holding a stack of cache rows, on a rounded square),
// drawn in code and PNG-encoded with zlib, so it needs no image tool and is reproducible.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";

const SIZE = 128;
const SUPERSAMPLE = 4;
type Rgba = readonly [number, number, number, number];
const BACKGROUND: Rgba = [31, 36, 48, 255];
const BUBBLE: Rgba = [79, 156, 255, 255];
const ROW: Rgba = [255, 255, 255, 255];

/** Inside a rounded rectangle (x0,y0)-(x1,y1) with corner radius r. */
function inRoundedRect(x: number, y: number, x0: number, y0: number, x1: number, y1: number, r: number): boolean {
  if (x < x0 || x > x1 || y < y0 || y > y1) return false;
  const cx = Math.min(Math.max(x, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y, y0 + r), y1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

/** Inside the triangle a-b-c (the bubble's tail). */
function inTriangle(x: number, y: number, a: readonly number[], b: readonly number[], c: readonly number[]): boolean {
  const side = (p: readonly number[], q: readonly number[]): number => (q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0]);
  const s1 = side(a, b), s2 = side(b, c), s3 = side(c, a);
  return (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0);
}

/** The colour of one point of the icon, the topmost shape first. */
function colourAt(x: number, y: number): Rgba | undefined {
  const rows = [[30, 40, 98], [30, 55, 84], [30, 70, 70]] as const;
  for (const [x0, y0, x1] of rows) if (inRoundedRect(x, y, x0, y0, x1, y0 + 8, 4)) return ROW;
  if (inRoundedRect(x, y, 16, 22, 112, 90, 14) || inTriangle(x, y, [34, 86], [58, 86], [30, 110])) return BUBBLE;
  if (inRoundedRect(x, y, 0, 0, SIZE - 1, SIZE - 1, 24)) return BACKGROUND;
  return undefined;
}

function pixels(): Buffer {
  // One filter byte (0: none) before each row of RGBA pixels, as PNG's IDAT expects.
  const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
  for (let py = 0; py < SIZE; py++) {
    for (let px = 0; px < SIZE; px++) {
      const sum = [0, 0, 0, 0];
      for (let sy = 0; sy < SUPERSAMPLE; sy++) {
        for (let sx = 0; sx < SUPERSAMPLE; sx++) {
          const c = colourAt(px + (sx + 0.5) / SUPERSAMPLE, py + (sy + 0.5) / SUPERSAMPLE);
          if (!c) continue;
          for (let i = 0; i < 3; i++) sum[i] += c[i] * c[3];
          sum[3] += c[3];
        }
      }
      const offset = py * (SIZE * 4 + 1) + 1 + px * 4;
      const alpha = sum[3] / SUPERSAMPLE ** 2;
      for (let i = 0; i < 3; i++) raw[offset + i] = sum[3] ? Math.round(sum[i] / sum[3]) : 0;
      raw[offset + 3] = Math.round(alpha);
    }
  }
  return raw;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

export function iconPng(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, deflate, no filter, no interlace
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", deflateSync(pixels(), { level: 9 })), chunk("IEND", Buffer.alloc(0))]);
}

if (process.argv[1] && process.argv[1].endsWith("make-icon.ts")) {
  writeFileSync(join(import.meta.dirname, "..", "..", "..", "media", "icon.png"), iconPng());
}
