// A local HTTP server (127.0.0.1 only) that serves files with Range support and a
// Hugging Face-like API, for download tests. Can cut a response short to simulate a drop.

import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ServedFile {
  readonly body: Buffer;
  /** Send the hub-style checksum header. */
  readonly linkedEtag?: boolean;
}

export class FileServer {
  readonly files = new Map<string, ServedFile>();
  readonly requests: { path: string; range?: string }[] = [];
  /** When set, the next full-body response is cut after this many bytes. */
  cutNextAt: number | undefined;
  /** When set, the next full-body response sends this many bytes and then nothing, until the client goes. */
  stallNextAt: number | undefined;
  /** Resolves when a stalled response's connection has closed (the client gave up). */
  stalledClosed: Promise<void> = Promise.resolve();
  private server: Server | undefined;

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = decodeURIComponent((req.url ?? "/").split("?")[0]);
      this.requests.push({ path, range: req.headers.range });
      const treeMatch = path.match(/^\/api\/models\/(.+)\/tree\/main$/);
      if (treeMatch) {
        const prefix = `/${treeMatch[1]}/resolve/main/`;
        const items = [...this.files.entries()]
          .filter(([p]) => p.startsWith(prefix))
          .map(([p, f]) => ({ type: "file", path: p.slice(prefix.length), size: f.body.length, lfs: { oid: sha256(f.body) } }));
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(items));
        return;
      }
      const file = this.files.get(path);
      if (!file) {
        res.writeHead(404).end("not found");
        return;
      }
      const headers: Record<string, string> = {};
      if (file.linkedEtag) headers["x-linked-etag"] = `"${sha256(file.body)}"`;
      const range = req.headers.range?.match(/^bytes=(\d+)-$/);
      let body = file.body;
      if (range) {
        const start = Number(range[1]);
        if (start >= file.body.length) {
          res.writeHead(416, headers).end();
          return;
        }
        body = file.body.subarray(start);
        res.writeHead(206, { ...headers, "content-length": String(body.length), "content-range": `bytes ${start}-${file.body.length - 1}/${file.body.length}` });
      } else {
        res.writeHead(200, { ...headers, "content-length": String(body.length) });
      }
      if (this.cutNextAt !== undefined) {
        const cut = this.cutNextAt;
        this.cutNextAt = undefined;
        res.write(body.subarray(0, cut), () => res.destroy());
        return;
      }
      if (this.stallNextAt !== undefined) {
        const stall = this.stallNextAt;
        this.stallNextAt = undefined;
        this.stalledClosed = new Promise<void>((resolve) => res.once("close", () => resolve()));
        res.write(body.subarray(0, stall));
        return;
      }
      res.end(body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

export function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}
