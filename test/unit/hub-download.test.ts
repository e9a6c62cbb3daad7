// Model downloads against a server that answers as the Hugging Face hub does: the sha256 is
// X-Linked-Etag on the 302 only, the CDN's ETag is another value. Covers which value is
// verified, refusing what cannot be verified, resumes that must not splice two versions of a
// file, a 206 that is not the requested range, HTTP 416, and Core ML folders (one commit,
// every file verified, a resume that skips finished files).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { MODEL_CATALOG, type CatalogEntry } from "../../src/extension/models/catalog";
import { downloadFile, DownloadError } from "../../src/extension/models/download";
import { downloadCatalogModel } from "../../src/extension/models/hub-download";
import { HubLikeServer, sha256 } from "../support/hub-like-server";

const gguf = (repo: string, extra: Partial<CatalogEntry> = {}): CatalogEntry => ({
  id: repo,
  label: repo,
  description: "",
  backend: "llamacpp",
  repo,
  file: "model.gguf",
  approxBytes: 1,
  ...extra,
});
const coreml = (repo: string): CatalogEntry => ({ id: repo, label: repo, description: "", backend: "coreml", repo, approxBytes: 1 });
const tempDir = () => mkdtemp(join(tmpdir(), "sc-hub-"));

describe("hub downloads", () => {
  const server = new HubLikeServer();
  before(async () => {
    await server.start();
    process.env.HF_ENDPOINT = server.url;
  });
  after(async () => {
    delete process.env.HF_ENDPOINT;
    await server.stop();
  });

  it("verifies the sha256 from the hub's 302, not the CDN's ETag (a 64-hex value that is not the sha256)", async () => {
    const body = randomBytes(200_000);
    server.publish("org/xet", { "model.gguf": { body } });
    server.setCdnEtag(body, `"${sha256(randomBytes(8))}"`);
    const path = await downloadCatalogModel(gguf("org/xet"), await tempDir());
    assert.deepEqual(await readFile(path), body);
  });

  it("refuses bytes from the CDN that are not the file the hub announced, and keeps nothing", async () => {
    const body = randomBytes(200_000);
    server.publish("org/corrupt", { "model.gguf": { body } });
    server.corruptNextBody = true;
    const dir = await tempDir();
    await assert.rejects(downloadCatalogModel(gguf("org/corrupt"), dir), /Checksum mismatch/);
    assert.deepEqual(await readdir(dir), []);
  });

  it("refuses a file it cannot verify (no pinned sha256, no X-Linked-Etag on a redirect) before downloading it", async () => {
    const body = randomBytes(200_000);
    server.publish("org/mirror", { "model.gguf": { body } });
    server.sendLinkedEtag = false;
    const dir = await tempDir();
    try {
      await assert.rejects(downloadCatalogModel(gguf("org/mirror"), dir), (error: unknown) => {
        assert.ok(error instanceof DownloadError);
        assert.match(error.message, /cannot be verified/);
        return true;
      });
    } finally {
      server.sendLinkedEtag = true;
    }
    assert.deepEqual(await readdir(dir), []);
  });

  it("a pinned sha256 the hub contradicts stops the download before its first byte", async () => {
    const body = randomBytes(200_000);
    server.publish("org/moved", { "model.gguf": { body } });
    const cdnBefore = server.cdnRequests().length;
    const dir = await tempDir();
    await assert.rejects(downloadCatalogModel(gguf("org/moved", { sha256: "0".repeat(64) }), dir), /pinned/);
    assert.equal(server.cdnRequests().length, cdnBefore, "nothing fetched from the CDN");
    assert.deepEqual(await readdir(dir), []);
  });

  it("a pinned revision is the one in the URL", async () => {
    const body = randomBytes(50_000);
    const first = server.publish("org/pinned", { "model.gguf": { body } });
    server.publish("org/pinned", { "model.gguf": { body: randomBytes(50_000) } });
    const before = server.requests.length;
    const path = await downloadCatalogModel(gguf("org/pinned", { revision: first } as Partial<CatalogEntry>), await tempDir());
    assert.deepEqual(await readFile(path), body);
    assert.equal(server.requests[before].path, `/org/pinned/resolve/${first}/model.gguf`);
  });

  it("a resume after the file changed on the hub starts over instead of splicing two versions", async () => {
    const v1 = randomBytes(300_000);
    const v2 = randomBytes(300_000);
    server.publish("org/changing", { "model.gguf": { body: v1 } });
    const dir = await tempDir();
    server.cdnCutNextAt = 100_000;
    await assert.rejects(downloadCatalogModel(gguf("org/changing"), dir), DownloadError);
    assert.ok(existsSync(join(dir, "model.gguf.part")));
    server.publish("org/changing", { "model.gguf": { body: v2 } });
    const path = await downloadCatalogModel(gguf("org/changing"), dir);
    assert.deepEqual(await readFile(path), v2);
  });

  it("a resume carries If-Range with the CDN's ETag; a CDN whose ETag changed sends the whole file, written from zero", async () => {
    const body = randomBytes(300_000);
    server.publish("org/reupload", { "model.gguf": { body } });
    server.setCdnEtag(body, '"first-upload"');
    const dir = await tempDir();
    server.cdnCutNextAt = 100_000;
    await assert.rejects(downloadCatalogModel(gguf("org/reupload"), dir), DownloadError);
    server.setCdnEtag(body, '"second-upload"');
    const before = server.cdnRequests().length;
    const path = await downloadCatalogModel(gguf("org/reupload"), dir);
    const resumed = server.cdnRequests()[before];
    assert.match(resumed.range ?? "", /^bytes=\d+-$/);
    assert.equal(resumed.ifRange, '"first-upload"');
    assert.deepEqual(await readFile(path), body);
  });

  it("a 206 that is not the requested range starts over from zero", async () => {
    const body = randomBytes(300_000);
    server.publish("org/badrange", { "model.gguf": { body } });
    const dir = await tempDir();
    server.cdnCutNextAt = 100_000;
    await assert.rejects(downloadCatalogModel(gguf("org/badrange"), dir), DownloadError);
    server.cdnWrongRangeNext = true;
    const path = await downloadCatalogModel(gguf("org/badrange"), dir);
    assert.deepEqual(await readFile(path), body);
  });

  it("HTTP 416 on a partial that does not verify starts over; it is never renamed into place unverified", async () => {
    const body = randomBytes(300_000);
    server.publish("org/416", { "model.gguf": { body } });
    const dir = await tempDir();
    server.cdnCutNextAt = 100_000;
    await assert.rejects(downloadCatalogModel(gguf("org/416"), dir), DownloadError);
    // A partial of the full length but the wrong bytes (a bad disk, another tool's leftovers).
    await writeFile(join(dir, "model.gguf.part"), randomBytes(body.length));
    const path = await downloadCatalogModel(gguf("org/416"), dir);
    assert.deepEqual(await readFile(path), body);
  });

  it("HTTP 416 on a complete, verified partial renames it without downloading it again", async () => {
    const body = randomBytes(300_000);
    server.publish("org/416-ok", { "model.gguf": { body } });
    const dir = await tempDir();
    server.cdnCutNextAt = 100_000;
    await assert.rejects(downloadCatalogModel(gguf("org/416-ok"), dir), DownloadError);
    await writeFile(join(dir, "model.gguf.part"), body);
    const before = server.cdnRequests().length;
    const path = await downloadCatalogModel(gguf("org/416-ok"), dir);
    assert.deepEqual(await readFile(path), body);
    assert.deepEqual(server.cdnRequests().slice(before).map((r) => r.range), [`bytes=${body.length}-`]);
  });

  it("downloadFile with a pinned sha256 follows the hub's redirect and verifies the pin", async () => {
    const body = randomBytes(100_000);
    server.publish("org/plain", { "model.gguf": { body } });
    const dest = join(await tempDir(), "m.gguf");
    await downloadFile(`${server.url}/org/plain/resolve/main/model.gguf`, dest, { sha256: sha256(body) });
    assert.deepEqual(await readFile(dest), body);
  });

  describe("Core ML folders", () => {
    it("downloads every file at one commit: LFS files by sha256, small files by git blob id", async () => {
      const weights = randomBytes(50_000);
      const commit = server.publish("org/coreml", {
        "model.mlmodelc/weights/weight.bin": { body: weights },
        "tokenizer.json": { body: Buffer.from('{"model":{}}'), lfs: false },
      });
      const before = server.requests.length;
      const folder = await downloadCatalogModel(coreml("org/coreml"), await tempDir());
      assert.deepEqual(await readFile(join(folder, "model.mlmodelc", "weights", "weight.bin")), weights);
      assert.equal(await readFile(join(folder, "tokenizer.json"), "utf8"), '{"model":{}}');
      assert.ok(!existsSync(`${folder}.partial`));
      const files = server.requests.slice(before).filter((r) => r.path.includes("/resolve/"));
      assert.ok(files.length === 2 && files.every((r) => r.path.startsWith(`/org/coreml/resolve/${commit}/`)), JSON.stringify(files));
    });

    it("refuses a small (non-LFS) file whose bytes do not match its git blob id", async () => {
      server.publish("org/coreml-bad", { "tokenizer.json": { body: Buffer.from('{"model":{}}'), lfs: false } });
      server.corruptNextBody = true;
      const dir = await tempDir();
      await assert.rejects(downloadCatalogModel(coreml("org/coreml-bad"), dir), /Checksum mismatch/);
      assert.ok(!existsSync(join(dir, "org--coreml-bad")));
    });

    it("reads a tree listing the hub pages (Link: rel=next) to its end", async () => {
      const files = Object.fromEntries(["a", "b", "c", "d", "e"].map((name) => [`${name}.bin`, { body: randomBytes(1000) }]));
      server.publish("org/coreml-paged", files);
      server.treePageSize = 2;
      try {
        const folder = await downloadCatalogModel(coreml("org/coreml-paged"), await tempDir());
        assert.deepEqual((await readdir(folder)).sort(), Object.keys(files));
      } finally {
        server.treePageSize = Number.POSITIVE_INFINITY;
      }
    });

    it("a resumed folder download does not fetch again the files it already verified", async () => {
      server.publish("org/coreml-resume", {
        "a.bin": { body: randomBytes(40_000) },
        "b.bin": { body: randomBytes(40_000) },
      });
      const dir = await tempDir();
      let seen = 0;
      const controller = new AbortController();
      await assert.rejects(
        downloadCatalogModel(coreml("org/coreml-resume"), dir, {
          signal: controller.signal,
          onProgress: (p) => {
            if (p.file === "b.bin" && ++seen === 1) controller.abort();
          },
        }),
      );
      const before = server.requests.length;
      await downloadCatalogModel(coreml("org/coreml-resume"), dir);
      const fetched = server.requests.slice(before).filter((r) => r.path.includes("/resolve/")).map((r) => r.path.split("/").at(-1));
      assert.deepEqual(fetched, ["b.bin"]);
    });

    it("a folder resumed after the repository moved on keeps nothing the new commit does not list", async () => {
      const keep = { body: randomBytes(20_000) };
      server.publish("org/coreml-moved", { "keep.bin": keep, "old.bin": { body: randomBytes(20_000) }, "z.bin": { body: randomBytes(20_000) } });
      const dir = await tempDir();
      const controller = new AbortController();
      await assert.rejects(
        downloadCatalogModel(coreml("org/coreml-moved"), dir, {
          signal: controller.signal,
          onProgress: (p) => {
            if (p.file === "z.bin") controller.abort();
          },
        }),
      );
      server.publish("org/coreml-moved", { "keep.bin": keep, "new.bin": { body: randomBytes(20_000) } });
      const folder = await downloadCatalogModel(coreml("org/coreml-moved"), dir);
      assert.deepEqual((await readdir(folder, { recursive: true })).sort(), ["keep.bin", "new.bin"]);
    });
  });

  it("the catalog pins a well-formed sha256 where one is known, the 1.5B GGUF included", () => {
    for (const entry of MODEL_CATALOG) if (entry.sha256 !== undefined) assert.match(entry.sha256, /^[0-9a-f]{64}$/, entry.id);
    const coder = MODEL_CATALOG.find((e) => e.id === "qwen2.5-coder-1.5b-q4_k_m");
    assert.equal(coder?.sha256, "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046");
  });
});
