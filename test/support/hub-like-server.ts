// A local HTTP server (127.0.0.1 only) that answers as the Hugging Face hub does, for the
// download tests: `resolve/<rev>/<file>` of an LFS file is a 302 carrying the file's sha256
// as X-Linked-Etag (plus X-Linked-Size, X-Repo-Commit), and the CDN it points to answers
// with its own, different ETag; small non-LFS files are a plain 200 whose ETag is the git
// blob id. Each publish is a new commit that `main` moves to; old commits stay resolvable.
// Knobs make it misbehave once: cut a CDN body short, corrupt a body, answer a Range with
// the wrong range.

import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface HubFile {
  readonly body: Buffer;
  /** Stored in LFS (served through the CDN). Defaults to true. */
  readonly lfs?: boolean;
}

export interface HubRequest {
  readonly path: string;
  readonly range?: string;
  readonly ifRange?: string;
}

interface Repo {
  main: string;
  readonly commits: Map<string, ReadonlyMap<string, HubFile>>;
}

export const sha256 = (data: Buffer): string => createHash("sha256").update(data).digest("hex");
export const gitBlobId = (data: Buffer): string =>
  createHash("sha1").update(`blob ${data.length}\0`).update(data).digest("hex");

export class HubLikeServer {
  readonly requests: HubRequest[] = [];
  /** False: a mirror that redirects without X-Linked-Etag. */
  sendLinkedEtag = true;
  /** The next CDN body is cut after this many bytes. */
  cdnCutNextAt: number | undefined;
  /** The next body (CDN or plain 200) has its bytes flipped: something else than the hub announced. */
  corruptNextBody = false;
  /** The next ranged CDN request is answered 206 with the whole file (Content-Range from 0). */
  cdnWrongRangeNext = false;
  /** Tree listings are paged this many items at a time (Link: rel="next"), as the hub pages long ones. */
  treePageSize = Number.POSITIVE_INFINITY;
  private readonly repos = new Map<string, Repo>();
  /** The CDN's ETag per blob (by sha256): not the sha256, as on the real CDN. */
  private readonly cdnEtags = new Map<string, string>();
  private readonly blobs = new Map<string, Buffer>();
  private server: Server | undefined;

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  /** A new commit of `repo` holding `files`; `main` moves to it. Returns the commit id. */
  publish(repo: string, files: Record<string, HubFile>): string {
    const commit = randomBytes(20).toString("hex");
    const entry = this.repos.get(repo) ?? { main: commit, commits: new Map() };
    entry.commits.set(commit, new Map(Object.entries(files)));
    entry.main = commit;
    this.repos.set(repo, entry);
    for (const file of Object.values(files)) {
      const hash = sha256(file.body);
      this.blobs.set(hash, file.body);
      if (!this.cdnEtags.has(hash)) this.cdnEtags.set(hash, `"${createHash("md5").update(file.body).digest("hex")}"`);
    }
    return commit;
  }

  /** Overrides the CDN's ETag for a blob (e.g. a 64-hex value that is not its sha256, as xet's). */
  setCdnEtag(body: Buffer, etag: string): void {
    this.cdnEtags.set(sha256(body), etag);
  }

  cdnRequests(): HubRequest[] {
    return this.requests.filter((r) => r.path.startsWith("/cdn/"));
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = decodeURIComponent((req.url ?? "/").split("?")[0]);
    const ifRange = req.headers["if-range"];
    this.requests.push({ path, range: req.headers.range, ifRange: typeof ifRange === "string" ? ifRange : undefined });
    const revision = path.match(/^\/api\/models\/([^/]+\/[^/]+)\/revision\/([^/]+)$/);
    if (revision) {
      const commit = this.commitOf(revision[1], revision[2]);
      if (!commit) return void res.writeHead(404).end("not found");
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id: revision[1], sha: commit }));
    }
    const tree = path.match(/^\/api\/models\/([^/]+\/[^/]+)\/tree\/([^/]+)$/);
    if (tree) return this.tree(res, tree[1], tree[2], Number(new URL(req.url ?? "/", this.url).searchParams.get("cursor") ?? 0));
    const resolve = path.match(/^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/);
    if (resolve) return this.resolve(req, res, resolve[1], resolve[2], resolve[3]);
    const cdn = path.match(/^\/cdn\/([0-9a-f]{64})$/);
    const blob = cdn ? this.blobs.get(cdn[1]) : undefined;
    if (cdn && blob) return this.serveBody(req, res, blob, { etag: this.cdnEtags.get(cdn[1])! }, true);
    res.writeHead(404).end("not found");
  }

  private commitOf(repo: string, revision: string): string | undefined {
    const entry = this.repos.get(repo);
    if (!entry) return undefined;
    const commit = revision === "main" ? entry.main : revision;
    return entry.commits.has(commit) ? commit : undefined;
  }

  private tree(res: ServerResponse, repo: string, revision: string, cursor: number): void {
    const commit = this.commitOf(repo, revision);
    if (!commit) return void res.writeHead(404).end("not found");
    const items = [...this.repos.get(repo)!.commits.get(commit)!.entries()].map(([path, file]) => ({
      type: "file",
      path,
      size: file.body.length,
      oid: gitBlobId(file.lfs === false ? file.body : Buffer.from(`pointer ${sha256(file.body)}`)),
      ...(file.lfs === false ? {} : { lfs: { oid: sha256(file.body), size: file.body.length } }),
    }));
    const page = items.slice(cursor, cursor + this.treePageSize);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (cursor + page.length < items.length) {
      headers.link = `<${this.url}/api/models/${repo}/tree/${revision}?recursive=true&cursor=${cursor + page.length}>; rel="next"`;
    }
    res.writeHead(200, headers).end(JSON.stringify(page));
  }

  private resolve(req: IncomingMessage, res: ServerResponse, repo: string, revision: string, path: string): void {
    const commit = this.commitOf(repo, revision);
    const file = commit ? this.repos.get(repo)!.commits.get(commit)!.get(path) : undefined;
    if (!commit || !file) return void res.writeHead(404).end("not found");
    if (file.lfs === false) return this.serveBody(req, res, file.body, { etag: `"${gitBlobId(file.body)}"`, "x-repo-commit": commit }, false);
    const headers: Record<string, string> = { location: `/cdn/${sha256(file.body)}`, "x-repo-commit": commit };
    if (this.sendLinkedEtag) {
      headers["x-linked-etag"] = `"${sha256(file.body)}"`;
      headers["x-linked-size"] = String(file.body.length);
    }
    res.writeHead(302, headers).end("Found. Redirecting");
  }

  private serveBody(req: IncomingMessage, res: ServerResponse, file: Buffer, headers: Record<string, string>, cdn: boolean): void {
    const range = req.headers.range?.match(/^bytes=(\d+)-$/);
    const ifRange = req.headers["if-range"];
    // RFC 9110 If-Range: a validator that no longer matches means "send the whole file".
    const honourRange = range && (ifRange === undefined || ifRange === headers.etag);
    let body = file;
    let status = 200;
    const out: Record<string, string> = { ...headers };
    if (honourRange) {
      const start = Number(range[1]);
      if (start >= file.length) return void res.writeHead(416, { ...headers, "content-range": `bytes */${file.length}` }).end();
      if (cdn && this.cdnWrongRangeNext) {
        this.cdnWrongRangeNext = false;
        out["content-range"] = `bytes 0-${file.length - 1}/${file.length}`;
      } else {
        body = file.subarray(start);
        out["content-range"] = `bytes ${start}-${file.length - 1}/${file.length}`;
      }
      status = 206;
    }
    if (this.corruptNextBody) {
      this.corruptNextBody = false;
      body = Buffer.from(body.map((byte) => byte ^ 0xff));
    }
    res.writeHead(status, { ...out, "content-length": String(body.length) });
    if (cdn && this.cdnCutNextAt !== undefined) {
      const cut = this.cdnCutNextAt;
      this.cdnCutNextAt = undefined;
      res.write(body.subarray(0, cut), () => res.destroy());
      return;
    }
    res.end(body);
  }
}
