// Model downloads against a local HTTP server: resumable, checksum-verified, hub layout.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { CatalogEntry } from "../../src/extension/models/catalog";
import { downloadFile, DownloadError } from "../../src/extension/models/download";
import { downloadCatalogModel } from "../../src/extension/models/hub-download";
import { FileServer, sha256 } from "../support/file-server";

describe("model download", () => {
  const server = new FileServer();
  const body = randomBytes(300_000);
  before(async () => {
    await server.start();
    server.files.set("/m.gguf", { body });
    server.files.set("/org/gguf-repo/resolve/main/model.gguf", { body, linkedEtag: true });
    server.files.set("/org/coreml-repo/resolve/main/model.mlmodelc/weights/weight.bin", { body: randomBytes(5000) });
    server.files.set("/org/coreml-repo/resolve/main/tokenizer.json", { body: Buffer.from("{}") });
    process.env.HF_ENDPOINT = server.url;
  });
  after(async () => {
    delete process.env.HF_ENDPOINT;
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

  it("catalog GGUF entries verify the hub's announced checksum", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sc-dl-"));
    const entry: CatalogEntry = { id: "t", label: "t", description: "", backend: "llamacpp", repo: "org/gguf-repo", file: "model.gguf", approxBytes: 1 };
    const path = await downloadCatalogModel(entry, dir);
    assert.deepEqual(await readFile(path), body);
  });

  it("catalog Core ML entries download the whole repository folder", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sc-dl-"));
    const entry: CatalogEntry = { id: "c", label: "c", description: "", backend: "coreml", repo: "org/coreml-repo", approxBytes: 1 };
    const folder = await downloadCatalogModel(entry, dir);
    assert.ok(existsSync(join(folder, "model.mlmodelc", "weights", "weight.bin")));
    assert.ok(existsSync(join(folder, "tokenizer.json")));
    assert.ok(!existsSync(`${folder}.partial`));
  });
});
