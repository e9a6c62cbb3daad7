// Downloads from a plain local HTTP server (no redirects): resumable, checksum-verified,
// cancellable. The hub's redirects and Core ML folders are in hub-download.test.ts.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CancelledError } from "../../src/extension/core/errors";
import { downloadFile, DownloadError } from "../../src/extension/models/download";
import { FileServer, sha256 } from "../support/file-server";

describe("model download", () => {
  const server = new FileServer();
  const body = randomBytes(300_000);
  before(async () => {
    await server.start();
    server.files.set("/m.gguf", { body });
  });
  after(async () => {
    await server.stop();
  });

  it("downloads and verifies a file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sc-dl-"));
    const progress: number[] = [];
    await downloadFile(`${server.url}/m.gguf`, join(dir, "m.gguf"), { sha256: sha256(body), onProgress: (p) => progress.push(p.receivedBytes) });
    assert.deepEqual(await readFile(join(dir, "m.gguf")), body);
    assert.equal(progress.at(-1), body.length);
  });

  it("an interrupted download resumes with a Range request", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sc-dl-"));
    const dest = join(dir, "m.gguf");
    server.cutNextAt = 100_000;
    await assert.rejects(downloadFile(`${server.url}/m.gguf`, dest, { sha256: sha256(body) }), DownloadError);
    assert.ok(existsSync(`${dest}.part`), "partial file kept");
    assert.ok(!existsSync(dest), "nothing at the final path");
    const before = server.requests.length;
    await downloadFile(`${server.url}/m.gguf`, dest, { sha256: sha256(body) });
    assert.match(server.requests[before].range ?? "", /^bytes=\d+-$/);
    assert.deepEqual(await readFile(dest), body);
  });

  it("a checksum mismatch is an error and leaves no file behind", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sc-dl-"));
    const dest = join(dir, "m.gguf");
    await assert.rejects(downloadFile(`${server.url}/m.gguf`, dest, { sha256: "0".repeat(64) }), /Checksum mismatch/);
    assert.deepEqual(await readdir(dir), []);
  });

  it("a missing file is a clear error", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sc-dl-"));
    await assert.rejects(downloadFile(`${server.url}/nope.gguf`, join(dir, "x")), /HTTP 404/);
  });

  it("a cancel that lands with the last chunk ends the download instead of hanging", { timeout: 5_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "sc-dl-"));
    const oneChunk = randomBytes(40_000);
    server.files.set("/one-chunk.gguf", { body: oneChunk });
    const controller = new AbortController();
    const download = downloadFile(`${server.url}/one-chunk.gguf`, join(dir, "one-chunk.gguf"), {
      sha256: sha256(oneChunk),
      signal: controller.signal,
      onProgress: (p) => {
        if (p.receivedBytes === oneChunk.length) controller.abort();
      },
    });
    await assert.rejects(download, CancelledError);
  });

  it("a partial without its resume state (left by something else) is not continued", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sc-dl-"));
    const dest = join(dir, "m.gguf");
    await writeFile(`${dest}.part`, randomBytes(100_000));
    const before = server.requests.length;
    await downloadFile(`${server.url}/m.gguf`, dest, { sha256: sha256(body) });
    assert.equal(server.requests[before].range, undefined);
    assert.deepEqual(await readFile(dest), body);
  });
});
