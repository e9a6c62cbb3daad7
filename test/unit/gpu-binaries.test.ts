// The CUDA binaries fetched on first use (src/extension/gpu-binaries/): a local registry
// stand-in (127.0.0.1) serves an npm-format tarball built here (`package/` with a
// package.json, node-llama-cpp's prebuilt index.js and a fake binary), pinned by its sha512
// integrity as package-lock.json pins the real one.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import { create } from "tar";
import { cudaPackagesFor, decideGpuFetch, GpuPackageError, type GpuFetchInput } from "../../src/extension/gpu-binaries/gpu-packages";
import { storedGpuPackage } from "../../src/extension/gpu-binaries/gpu-package-store";
import { resolvablePackage } from "../../src/extension/gpu-binaries/node-resolution";
import { gpuPackagesDecision, noticeOf, provideGpuPackages, readGpuPins, type GpuFetchProgress, type GpuPackagesRequest } from "../../src/extension/gpu-binaries/provide-gpu-packages";
import { integrityOf, registryTarballUrl, sha512HexOf, type NpmPackagePin } from "../../src/extension/gpu-binaries/npm-package";
import { lockedPackage } from "../../src/tools/packaging/lockfile";
import { FileServer } from "../support/file-server";

const NAME = "@node-llama-cpp/linux-x64-cuda";
const VERSION = "3.21.1";
// node-llama-cpp's prebuilt packages' dist/index.js, as published.
const INDEX_JS = `import path from "path";
import { fileURLToPath } from "url";
import fs from "node:fs/promises";
const __dirname = path.dirname(fileURLToPath(import.meta.url));
const binsDir = path.join(__dirname, "..", "bins");
const packageVersion = (JSON.parse(await fs.readFile(path.join(__dirname, "..", "package.json"), "utf8"))).version;
export function getBinsDir() { return { binsDir, packageVersion }; }
`;

/** Every temporary folder, removed at the end (the real tarball unpacks to 181 MB). */
const made: string[] = [];
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
after(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

async function npmTarball(name: string, version: string): Promise<Buffer> {
  const root = await tempDir("sc-gpu-tgz-");
  const pkg = join(root, "package");
  mkdirSync(join(pkg, "dist"), { recursive: true });
  mkdirSync(join(pkg, "bins", "linux-x64-cuda"), { recursive: true });
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name, version, type: "module", main: "dist/index.js", exports: { ".": { import: "./dist/index.js" } } }));
  writeFileSync(join(pkg, "dist", "index.js"), INDEX_JS);
  // Random bytes: gzip cannot shrink them, so the tarball is long enough to cut mid-way.
  writeFileSync(join(pkg, "bins", "linux-x64-cuda", "llama-addon.node"), randomBytes(400_000));
  writeFileSync(join(pkg, "bins", "linux-x64-cuda", "_nlcBuildMetadata.json"), "{}");
  const file = join(root, "pkg.tgz");
  await create({ gzip: true, file, cwd: root, portable: true }, ["package"]);
  return readFileSync(file);
}

/** A fake extension: node_modules/node-llama-cpp at VERSION with a file that imports the CUDA package as node-llama-cpp does. */
async function fakeExtension(): Promise<{ storage: string; nodeLlamaCppDir: string }> {
  const root = await tempDir("sc-gpu-ext-");
  const nodeLlamaCppDir = join(root, "extension", "node_modules", "node-llama-cpp");
  mkdirSync(join(nodeLlamaCppDir, "dist", "bindings"), { recursive: true });
  writeFileSync(join(nodeLlamaCppDir, "package.json"), JSON.stringify({ name: "node-llama-cpp", version: VERSION, type: "module" }));
  writeFileSync(join(nodeLlamaCppDir, "dist", "bindings", "find.js"), `export const load = () => import(${JSON.stringify(NAME)});\n`);
  return { storage: join(root, "globalStorage"), nodeLlamaCppDir };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("GPU binaries fetched on first use", () => {
  const server = new FileServer();
  let tarball: Buffer;
  let pin: NpmPackagePin;
  before(async () => {
    await server.start();
    tarball = await npmTarball(NAME, VERSION);
    pin = { name: NAME, version: VERSION, integrity: integrityOf(tarball), tarballUrl: registryTarballUrl(`${server.url}/`, NAME, VERSION) };
    server.files.set(new URL(pin.tarballUrl).pathname, { body: tarball });
  });
  after(() => server.stop());

  const request = (ext: { storage: string; nodeLlamaCppDir: string }, pins: readonly NpmPackagePin[]): GpuPackagesRequest => ({
    choice: "auto",
    nvidiaDriver: true,
    pins,
    ...ext,
    platform: "linux",
    arch: "x64",
  });

  it("decides which package this platform and device need, and only then", () => {
    const base: GpuFetchInput = { choice: "auto", platform: "linux", arch: "x64", nvidiaDriver: true, pins: [], present: () => false };
    const pins = cudaPackagesFor("linux", "x64").map((name) => ({ ...pin, name }));
    assert.deepEqual(cudaPackagesFor("win32", "x64"), ["@node-llama-cpp/win-x64-cuda", "@node-llama-cpp/win-x64-cuda-ext"]);
    const fetch = decideGpuFetch({ ...base, pins });
    assert.equal(fetch.kind, "fetch");
    assert.deepEqual(fetch.kind === "fetch" && fetch.pins.map((p) => p.name), ["@node-llama-cpp/linux-x64-cuda", "@node-llama-cpp/linux-x64-cuda-ext"]);
    const onlyExt = decideGpuFetch({ ...base, pins, present: (name) => name === NAME });
    assert.deepEqual(onlyExt.kind === "fetch" && onlyExt.pins.map((p) => p.name), ["@node-llama-cpp/linux-x64-cuda-ext"]);
    assert.equal(decideGpuFetch({ ...base, pins, nvidiaDriver: false }).kind, "none");
    assert.equal(decideGpuFetch({ ...base, pins, choice: "vulkan" }).kind, "none");
    assert.equal(decideGpuFetch({ ...base, pins, choice: "off" }).kind, "none");
    assert.equal(decideGpuFetch({ ...base, pins, platform: "darwin", arch: "arm64" }).kind, "none");
    assert.equal(decideGpuFetch({ ...base, pins, platform: "linux", arch: "arm64" }).kind, "none");
    assert.equal(decideGpuFetch({ ...base, pins, present: () => true }).kind, "none");
    const unpinned = decideGpuFetch(base);
    assert.equal(unpinned.kind, "unavailable");
    assert.match(unpinned.kind === "unavailable" ? unpinned.notice : "", /running on the CPU/);
  });

  it("fetches, reports progress, verifies, unpacks, and node-llama-cpp's import finds it", async () => {
    const ext = await fakeExtension();
    assert.equal(gpuPackagesDecision(request(ext, [pin])).kind, "fetch");
    const progress: GpuFetchProgress[] = [];
    await provideGpuPackages(request(ext, [pin]), [pin], { onProgress: (p) => progress.push(p) });
    assert.ok(progress.length > 0, "progress reported");
    assert.deepEqual({ ...progress.at(-1)! }, { name: NAME, index: 1, count: 1, receivedBytes: tarball.length, totalBytes: tarball.length });
    const stored = storedGpuPackage(ext.storage, pin);
    assert.ok(stored?.startsWith(join(ext.storage, "gpu-binaries")), `stored at ${stored}`);
    assert.ok(existsSync(join(stored!, "bins", "linux-x64-cuda", "llama-addon.node")), "unpacked without the package/ prefix");
    assert.deepEqual(readdirSync(join(ext.storage, "gpu-binaries", "downloads")), [], "the tarball is not kept once unpacked");
    assert.equal(resolvablePackage(join(ext.nodeLlamaCppDir, "dist", "bindings"), NAME)?.version, VERSION);
    // node-llama-cpp's own lookup: a bare import from its files, then getBinsDir().
    const { load } = (await import(pathToFileURL(join(ext.nodeLlamaCppDir, "dist", "bindings", "find.js")).href)) as { load: () => Promise<{ getBinsDir(): { binsDir: string; packageVersion: string } }> };
    const { binsDir, packageVersion } = (await load()).getBinsDir();
    assert.equal(packageVersion, VERSION);
    assert.equal(binsDir, join(realpathSync(stored!), "bins"), "the bins in global storage");
    assert.equal(gpuPackagesDecision(request(ext, [pin])).kind, "none", "present now: nothing more to fetch");
    // Linked again after an update replaced the extension's folder, without a download.
    const requests = server.requests.length;
    const fresh = await fakeExtension();
    await provideGpuPackages(request({ ...fresh, storage: ext.storage }, [pin]), [pin]);
    assert.equal(server.requests.length, requests, "no request for a stored package");
    assert.equal(resolvablePackage(fresh.nodeLlamaCppDir, NAME)?.version, VERSION);
  });

  it("resumes a partial download", async () => {
    const ext = await fakeExtension();
    server.cutNextAt = 150_000;
    await assert.rejects(provideGpuPackages(request(ext, [pin]), [pin]), (e: unknown) => e instanceof GpuPackageError && e.failure === "failed");
    const downloads = join(ext.storage, "gpu-binaries", "downloads");
    assert.ok(readdirSync(downloads).some((f) => f.endsWith(".tgz.part")), "the part received is kept");
    assert.equal(storedGpuPackage(ext.storage, pin), undefined);
    const before = server.requests.length;
    await provideGpuPackages(request(ext, [pin]), [pin]);
    assert.match(server.requests[before]!.range ?? "", /^bytes=\d+-$/, "continued with a Range request");
    assert.ok(storedGpuPackage(ext.storage, pin));
  });

  it("refuses a corrupted tarball, with a clear error and nothing left in place", async () => {
    const ext = await fakeExtension();
    const corrupted = Buffer.from(tarball);
    corrupted[corrupted.length >> 1]! ^= 0xff;
    const bad = { ...pin, tarballUrl: `${server.url}/corrupted/cuda.tgz` };
    server.files.set("/corrupted/cuda.tgz", { body: corrupted });
    await assert.rejects(provideGpuPackages(request(ext, [bad]), [bad]), (e: unknown) => {
      assert.ok(e instanceof GpuPackageError);
      assert.equal(e.failure, "refused");
      assert.match(e.message, /does not match package-lock\.json's sha512; nothing was kept/);
      assert.match(noticeOf(e), /^GPU not used: the downloaded CUDA binary was refused .*running on the CPU\. To try again, run "Stateful Chat: Retry GPU Download"/);
      return true;
    });
    const root = join(ext.storage, "gpu-binaries");
    assert.deepEqual(readdirSync(root), ["downloads"], "no package folder");
    assert.deepEqual(readdirSync(join(root, "downloads")), [], "no partial, no tarball");
    assert.equal(resolvablePackage(ext.nodeLlamaCppDir, NAME), undefined, "nothing linked");
  });

  it("offline: the CPU serves, with one notice that says why and how to retry", async () => {
    const ext = await fakeExtension();
    const offline = { ...pin, tarballUrl: registryTarballUrl(`http://127.0.0.1:${await closedPort()}/`, NAME, VERSION) };
    await assert.rejects(provideGpuPackages(request(ext, [offline]), [offline]), (e: unknown) => {
      assert.ok(e instanceof GpuPackageError);
      assert.equal(e.failure, "offline");
      assert.match(noticeOf(e), /^GPU not used: the npm registry could not be reached \(Cannot reach http:\/\/127\.0\.0\.1:\d+.*\); running on the CPU\. To try again, run "Stateful Chat: Retry GPU Download" from the Command Palette\.$/);
      return true;
    });
    assert.equal(gpuPackagesDecision(request(ext, [offline])).kind, "fetch", "still missing: the retry fetches it");
  });

  it("a cancel keeps the part for the retry", async () => {
    const ext = await fakeExtension();
    const abort = new AbortController();
    await assert.rejects(
      provideGpuPackages(request(ext, [pin]), [pin], { signal: abort.signal, onProgress: () => abort.abort() }),
      (e: unknown) => e instanceof GpuPackageError && e.failure === "cancelled" && /cancelled/.test(noticeOf(e)),
    );
    assert.equal(storedGpuPackage(ext.storage, pin), undefined);
  });

  it("reads the pins the VSIX carries, and only well-formed ones", async () => {
    const dir = await tempDir("sc-gpu-pins-");
    const file = join(dir, "gpu-binaries.json");
    writeFileSync(file, JSON.stringify([pin, { ...pin, integrity: "sha1-abc" }, { name: 3 }]));
    assert.deepEqual(readGpuPins(file), [pin]);
    assert.deepEqual(readGpuPins(join(dir, "missing.json")), []);
    assert.equal(sha512HexOf(pin.integrity)?.length, 128);
  });
});

// The real tarball, as packaging caches it (src/tools/packaging/prebuilts.ts): present after
// `npm run package -- --target win32-x64`-style fetches or a manual download; skipped loudly without.
const REPO = join(__dirname, "..", "..");
const REAL_TARBALL = join(REPO, ".cache", "packaging", "tarballs", "@node-llama-cpp+linux-x64-cuda-3.21.1.tgz");

describe("the real CUDA tarball from a local registry stand-in", () => {
  const server = new FileServer();
  let real: Buffer | undefined;
  let pin: NpmPackagePin;
  before(async () => {
    if (!existsSync(REAL_TARBALL)) return;
    await server.start();
    real = readFileSync(REAL_TARBALL);
    const locked = lockedPackage(REPO, NAME);
    pin = { ...locked, tarballUrl: registryTarballUrl(`${server.url}/`, NAME, locked.version) };
    server.files.set(new URL(pin.tarballUrl).pathname, { body: real });
    server.files.set("/corrupted.tgz", { body: Buffer.concat([real.subarray(0, 1000), Buffer.from([real[1000]! ^ 1]), real.subarray(1001)]) });
  });
  after(() => (real ? server.stop() : undefined));

  const skipped = (t: { name: string; skip(message: string): void }): boolean => {
    if (real) return false;
    console.error(`SKIPPED: ${t.name}: no ${REAL_TARBALL} (curl -o it from https://registry.npmjs.org/${NAME}/-/linux-x64-cuda-3.21.1.tgz)`);
    t.skip(`SKIPPED: no ${REAL_TARBALL}`);
    return true;
  };

  it("is fetched with progress, matches the lock's sha512, unpacks as npm installs it and is found", async (t) => {
    if (skipped(t)) return;
    const ext = await fakeExtension();
    const request: GpuPackagesRequest = { choice: "cuda", nvidiaDriver: true, pins: [pin], ...ext, platform: "linux", arch: "x64" };
    const progress: GpuFetchProgress[] = [];
    await provideGpuPackages(request, [pin], { onProgress: (p) => progress.push(p) });
    assert.equal(progress.at(-1)?.receivedBytes, real!.length);
    assert.equal(progress.at(-1)?.totalBytes, real!.length);
    const stored = storedGpuPackage(ext.storage, pin)!;
    const installed = join(REPO, "node_modules", NAME);
    if (existsSync(installed)) assert.deepEqual(readdirSync(join(stored, "bins", "linux-x64-cuda")).sort(), readdirSync(join(installed, "bins", "linux-x64-cuda")).sort(), "the files npm installs");
    assert.ok(existsSync(join(stored, "bins", "linux-x64-cuda", "llama-addon.node")));
    const { load } = (await import(pathToFileURL(join(ext.nodeLlamaCppDir, "dist", "bindings", "find.js")).href)) as { load: () => Promise<{ getBinsDir(): { binsDir: string; packageVersion: string } }> };
    assert.equal((await load()).getBinsDir().binsDir, join(realpathSync(stored), "bins"));
  });

  it("one flipped byte is refused and nothing is left in place", async (t) => {
    if (skipped(t)) return;
    const ext = await fakeExtension();
    const bad = { ...pin, tarballUrl: `${server.url}/corrupted.tgz` };
    await assert.rejects(provideGpuPackages({ choice: "cuda", nvidiaDriver: true, pins: [bad], ...ext }, [bad]), (e: unknown) => e instanceof GpuPackageError && e.failure === "refused");
    assert.deepEqual(readdirSync(join(ext.storage, "gpu-binaries")), ["downloads"]);
    assert.deepEqual(readdirSync(join(ext.storage, "gpu-binaries", "downloads")), []);
  });
});
